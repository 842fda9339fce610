"""The service's paths: the Data API's, the Email API's and the panel's, each named once.

>>> EMAIL_VERIFY_PATH
'/api/emails/v1/verify'
"""

from __future__ import annotations

__all__ = [
    "ALUMNI_PATH",
    "BATCH_PATH",
    "COMPANY_BATCH_PATH",
    "COMPANY_PATH",
    "COMPANY_SEARCH_PATH",
    "DATA_PREFIX",
    "EMAILS_HEALTH_PATH",
    "EMAILS_PREFIX",
    "EMAIL_FIND_PATH",
    "EMAIL_FIND_PROFILE_PATH",
    "EMAIL_PROSPECTS_PATH",
    "EMAIL_REVERSE_PATH",
    "EMAIL_VERIFY_PATH",
    "EMPLOYEES_PATH",
    "FIND_BATCH_PATH",
    "HEALTH_PATH",
    "INSTITUTION_PATH",
    "INSTITUTION_SEARCH_PATH",
    "JOB_CHANGES_PATH",
    "PANEL_PREFIX",
    "PROFILE_PATH",
    "SEARCH_PATH",
    "SKILL_PATH",
    "SKILL_SEARCH_PATH",
    "TIER_PATH",
    "VERIFY_BATCH_PATH",
]

DATA_PREFIX = "/api/data/v1"
PROFILE_PATH = f"{DATA_PREFIX}/people/profile"
EMPLOYEES_PATH = f"{DATA_PREFIX}/companies/employees"
SEARCH_PATH = f"{DATA_PREFIX}/people/search"
TIER_PATH = "/api/panel/credits/tier/k/"
#: The Data API's liveness probe. It is free and needs no key.
HEALTH_PATH = f"{DATA_PREFIX}/health"
#: Bulk enrichment. POST submits a job, GET with ``job_id`` and ``after`` tracks it.
BATCH_PATH = f"{DATA_PREFIX}/people/batch/enrich"
PANEL_PREFIX = "/api/panel/"
COMPANY_PATH = f"{DATA_PREFIX}/companies/company"
COMPANY_SEARCH_PATH = f"{DATA_PREFIX}/companies/search"
COMPANY_BATCH_PATH = f"{DATA_PREFIX}/companies/batch/enrich"
INSTITUTION_PATH = f"{DATA_PREFIX}/institutions/institution"
INSTITUTION_SEARCH_PATH = f"{DATA_PREFIX}/institutions/search"
ALUMNI_PATH = f"{DATA_PREFIX}/institutions/alumni"
SKILL_PATH = f"{DATA_PREFIX}/skills/skill"
SKILL_SEARCH_PATH = f"{DATA_PREFIX}/skills/search"
JOB_CHANGES_PATH = f"{DATA_PREFIX}/job-changes/search"
#: The Email API (``email-api.md``): same key, same envelope, its own base.
EMAILS_PREFIX = "/api/emails/v1"
EMAIL_VERIFY_PATH = f"{EMAILS_PREFIX}/verify"
EMAIL_FIND_PATH = f"{EMAILS_PREFIX}/find"
EMAIL_FIND_PROFILE_PATH = f"{EMAILS_PREFIX}/find/linkedin"
EMAIL_REVERSE_PATH = f"{EMAILS_PREFIX}/reverse"
EMAIL_PROSPECTS_PATH = f"{EMAILS_PREFIX}/prospects"
#: The Email API's batch jobs: POST ``{"emails": [...]}`` / ``{"queries": [...]}``, GET with
#: ``job_id`` and an integer ``after``.
VERIFY_BATCH_PATH = f"{EMAILS_PREFIX}/verify/batch"
FIND_BATCH_PATH = f"{EMAILS_PREFIX}/find/batch"
#: The Email API's liveness probe: free, no key.
EMAILS_HEALTH_PATH = f"{EMAILS_PREFIX}/health"
