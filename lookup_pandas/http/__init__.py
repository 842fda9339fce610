"""The send chain: the session, one call's decisions, first contact, the pace, counts and errors.

Example:
    >>> from urllib.parse import urlsplit
    >>> import lookup_pandas as lp
    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> def answer(request):
    ...     if "/credits/tier/" in request.url:
    ...         return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
    ...     return 200, envelope({"id": "prsn_1", "handle": "ada"}), {"X-Credits-Consumed": "1"}
    >>> transport = MockTransport(answer)
    >>> with lp.Client(api_key="lk_example", base_url="https://api.example.com",
    ...                transport=transport, cache=False) as client:
    ...     _ = client.profile("ada")
    ...     credits = client.stats.credits_consumed
    >>> [urlsplit(request.url).path for request in transport.requests]  # the pace first, free
    ['/api/panel/credits/tier/k/', '/api/data/v1/people/profile']
    >>> credits
    1.0
"""
