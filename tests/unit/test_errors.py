"""Unit tests for lookup_pandas.errors: the hierarchy, messages and pickling."""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest

from lookup_pandas import errors
from lookup_pandas.errors import (
    BudgetExceededError,
    RateLimitError,
    RequestTimeoutError,
    ServiceError,
    TransportError,
)

#: The errors (errors.__all__ also lists InsecureCacheWarning, a UserWarning: not an error).
ALL_CLASSES = [
    cls
    for cls in (getattr(errors, name) for name in errors.__all__)
    if not issubclass(cls, Warning)
]


def make(cls: type[ServiceError]) -> ServiceError:
    kwargs = dict(
        status_code=418,
        request_id="req_42",
        error_code="E1",
        errors={"f": "bad"},
        url="http://127.0.0.1:9/x",
    )
    if cls is BudgetExceededError:
        return cls("too many calls", needed=120, allowed=100, **kwargs)
    if cls is RateLimitError:
        return cls("slow down", retry_after=7.5, **kwargs)
    return cls("something failed", **kwargs)


def test_all_lists_every_exception_class_in_the_module():
    defined = {
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseException)
        and obj.__module__ == errors.__name__
    }
    assert defined == set(errors.__all__)
    assert len(ALL_CLASSES) == 19  # StorageError (issue 42) is the 19th


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_every_class_is_a_service_error_and_not_builtin_lookup_error(cls):
    assert issubclass(cls, ServiceError)
    assert issubclass(cls, Exception)
    assert not issubclass(cls, LookupError)
    assert not issubclass(cls, KeyError)


def test_request_timeout_is_a_transport_error():
    assert issubclass(RequestTimeoutError, TransportError)


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_str_includes_status_and_request_id(cls):
    exc = make(cls)
    text = str(exc)
    assert exc.message in text
    assert "HTTP 418" in text
    assert "req_42" in text


def test_str_without_details_is_just_the_message():
    assert str(ServiceError("plain")) == "plain"


def test_str_with_only_status():
    assert str(ServiceError("boom", status_code=500)) == "boom (HTTP 500)"


def test_str_docstring_example():
    assert (
        str(ServiceError("boom", status_code=500, request_id="req_1"))
        == "boom (HTTP 500, request req_1)"
    )


def test_attributes_default_to_none():
    exc = ServiceError("x")
    assert (exc.status_code, exc.request_id, exc.error_code, exc.errors, exc.url) == (None,) * 5
    assert RateLimitError("x").retry_after is None


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip_keeps_everything(cls, protocol):
    exc = make(cls)
    back = pickle.loads(pickle.dumps(exc, protocol=protocol))
    assert type(back) is cls
    assert back.message == exc.message
    assert back.status_code == 418
    assert back.request_id == "req_42"
    assert back.error_code == "E1"
    assert back.errors == {"f": "bad"}
    assert back.url == "http://127.0.0.1:9/x"
    assert str(back) == str(exc)
    assert back.args == exc.args
    if cls is BudgetExceededError:
        assert (back.needed, back.allowed) == (120, 100)
    if cls is RateLimitError:
        assert back.retry_after == 7.5


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_copy_keeps_attributes(cls):
    exc = make(cls)
    dup = copy.deepcopy(exc)
    assert type(dup) is cls
    assert dup.__dict__ == exc.__dict__


def test_exceptions_can_be_raised_and_caught_as_service_error():
    with pytest.raises(ServiceError) as info:
        raise BudgetExceededError("over budget", needed=3, allowed=2)
    assert isinstance(info.value, BudgetExceededError)
    assert info.value.needed == 3 and info.value.allowed == 2


# -- messages that say what is wrong, shaped for where they surface ------------------------------


def test_validation_error_message_carries_the_field_reasons():
    exc = errors.ValidationError(
        "Validation failed",
        status_code=400,
        error_code="VALIDATION_ERROR",
        errors={"limit": "must be an integer between 1 and 50", "slug": "is required"},
    )
    assert str(exc) == (
        "Validation failed: limit: must be an integer between 1 and 50; "
        "slug: is required (HTTP 400, code VALIDATION_ERROR)"
    )
    assert exc.message == "Validation failed"  # the server's own text, unchanged


def test_validation_error_without_field_reasons_is_plain():
    assert str(errors.ValidationError("Bad", status_code=400)) == "Bad (HTTP 400)"


def test_a_hint_follows_the_details():
    exc = errors.AuthenticationError("Invalid API key", status_code=403)
    exc.hint = "Check the LOOKUP_API_KEY environment variable"
    assert str(exc) == "Invalid API key (HTTP 403). Check the LOOKUP_API_KEY environment variable"
    assert pickle.loads(pickle.dumps(exc)).hint == exc.hint


def test_configuration_error_has_a_message_for_the_command_line():
    exc = errors.ConfigurationError("pass api_key=...", cli_message="set LOOKUP_API_KEY")
    assert str(exc) == "pass api_key=..." and exc.cli_message == "set LOOKUP_API_KEY"
    assert errors.ConfigurationError("same").cli_message == "same"
    assert pickle.loads(pickle.dumps(exc)).cli_message == "set LOOKUP_API_KEY"


@pytest.mark.parametrize(
    "cls",
    [
        errors.ConfigurationError,
        errors.AuthenticationError,
        errors.BudgetExceededError,
        errors.UsageError,
        errors.ColumnError,
        errors.ValidationError,
    ],
)
def test_errors_the_user_can_fix_render_as_one_line_in_a_notebook(cls):
    exc = make(cls)
    assert hasattr(exc, "_render_traceback_")
    lines = exc._render_traceback_()
    assert lines == [f"{cls.__name__}: {exc}"]


@pytest.mark.parametrize(
    "cls",
    [
        errors.ServerError,
        errors.TransportError,
        errors.ResponseError,
        errors.PaginationError,
        errors.ServiceError,
    ],
)
def test_other_errors_keep_their_traceback_in_a_notebook(cls):
    # IPython asks hasattr(exc, "_render_traceback_"): it must be False here
    assert not hasattr(make(cls), "_render_traceback_")


def test_usage_errors_are_value_errors_and_never_lookup_errors():
    assert issubclass(errors.UsageError, ValueError)
    assert issubclass(errors.ColumnError, errors.UsageError)
    assert not issubclass(errors.ColumnError, LookupError)
