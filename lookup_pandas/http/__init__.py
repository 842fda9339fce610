"""The wire: the requests session with its cache backend, and sending requests through it."""
