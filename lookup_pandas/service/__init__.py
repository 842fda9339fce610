"""The service's contract, pure: its endpoints, the answer envelope, retries and credits."""
