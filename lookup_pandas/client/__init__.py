"""The Client and what it is made of: its parts, its cache, records, pages, batch jobs, credits."""
