"""The Client: the session, the cache and the store wired together, and the calls made through
them (records, pages, batch jobs, credits)."""
