"""Unit tests for lookup_pandas.cli.listing_commands: ``--filter KEY=VALUE`` pairs."""

from __future__ import annotations

import pytest

from lookup_pandas.cli.exits import InputError
from lookup_pandas.cli.listing_commands import pair


def test_a_filter_is_a_key_value_pair_that_is_no_keyword_of_the_command():
    assert pair("geo_country_code=DE", "title") == ("geo_country_code", "DE")
    assert pair("title=a=b", "slug") == ("title", "a=b")
    with pytest.raises(InputError, match="KEY=VALUE"):
        pair("nokey")
    with pytest.raises(InputError, match="KEY=VALUE"):
        pair("=x")
    for key in ("limit", "max_records", "client", "progress", "frame", "title"):
        with pytest.raises(InputError, match="is not a filter"):
            pair(f"{key}=x", "title")
    for key in ("name", "website"):  # search-companies' own argument and option
        with pytest.raises(InputError, match="is not a filter"):
            pair(f"{key}=x", "name", "website")
