"""The emulator's vocabulary: the words, places and fixed numbers synthetic people are made of.

Example: ``CITIES[0]`` is ``("Berlin", "Germany", "DE", "Berlin", "de")``; ``COMPANIES["acme"]``
is 137 (its current employees). Read through :mod:`.data`, which re-exports all of it.
"""

from __future__ import annotations

import datetime as dt
import re

FIRST = [
    "Ada",
    "Alan",
    "Grace",
    "Linus",
    "Margaret",
    "Dennis",
    "Barbara",
    "Ken",
    "Frances",
    "Edsger",
    "Radia",
    "Donald",
    "Hedy",
    "Tim",
    "Katherine",
    "Guido",
    "Sophie",
    "Yukihiro",
]
LAST = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Torvalds",
    "Hamilton",
    "Ritchie",
    "Liskov",
    "Thompson",
    "Allen",
    "Dijkstra",
    "Perlman",
    "Knuth",
    "Lamarr",
    "Berners-Lee",
    "Johnson",
    "van Rossum",
    "Wilson",
    "Matsumoto",
]
TITLES = [
    "Software Engineer",
    "Data Scientist",
    "Product Manager",
    "Data Engineer",
    "Engineering Manager",
    "Designer",
    "Sales Director",
    "Account Executive",
    "Machine Learning Engineer",
    "Recruiter",
    "Marketing Lead",
    "CTO",
]
SENIORITY = ["", "Senior ", "Staff ", "Principal ", "Junior ", "Associate "]
#: The job function of each title (people search's ``function``), whatever its seniority.
FUNCTIONS = {
    "Software Engineer": "engineering",
    "Data Scientist": "data science",
    "Product Manager": "product management",
    "Data Engineer": "engineering",
    "Engineering Manager": "engineering",
    "Designer": "design",
    "Sales Director": "sales",
    "Account Executive": "sales",
    "Machine Learning Engineer": "engineering",
    "Recruiter": "human resources",
    "Marketing Lead": "marketing",
    "CTO": "engineering",
}
#: (city, country, country code, region, language of the locale)
CITIES = [
    ("Berlin", "Germany", "DE", "Berlin", "de"),
    ("London", "United Kingdom", "GB", "England", "en"),
    ("Paris", "France", "FR", "Île-de-France", "fr"),
    ("New York", "United States", "US", "New York", "en"),
    ("Toronto", "Canada", "CA", "Ontario", "en"),
    ("Lisbon", "Portugal", "PT", "Lisbon", "pt"),
    ("Bangalore", "India", "IN", "Karnataka", "en"),
    ("São Paulo", "Brazil", "BR", "São Paulo", "pt"),
    ("Tokyo", "Japan", "JP", "Tokyo", "ja"),
]
LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "pt": "Portuguese",
    "ja": "Japanese",
    "es": "Spanish",
    "it": "Italian",
    "zh": "Chinese",
}
PROFICIENCIES = [
    "NATIVE_OR_BILINGUAL",
    "FULL_PROFESSIONAL",
    "PROFESSIONAL_WORKING",
    "LIMITED_WORKING",
    "ELEMENTARY",
]
SKILLS = [
    "python",
    "pandas",
    "sql",
    "spark",
    "machine learning",
    "statistics",
    "go",
    "rust",
    "leadership",
    "negotiation",
    "figma",
    "kubernetes",
    "excel",
    "tableau",
]
#: Organizations people's positions are drawn from (employees lists add the company asked for).
ORGANIZATIONS = [
    "acme",
    "globex",
    "hooli",
    "initech",
    "umbrella",
    "stark-industries",
    "wayne-enterprises",
    "cyberdyne",
]
SCHOOLS = [
    ("mit", "MIT"),
    ("eth-zurich", "ETH Zurich"),
    ("university-of-oxford", "University of Oxford"),
    ("tu-munich", "TU Munich"),
    ("sorbonne-university", "Sorbonne University"),
    ("university-of-toronto", "University of Toronto"),
    ("iit-bombay", "IIT Bombay"),
    ("university-of-tokyo", "University of Tokyo"),
]
DEGREES = ["BSc", "MSc", "PhD", "BA", "MBA"]
#: The level of each degree (people search's ``education_level``; production names none).
EDUCATION_LEVELS = {
    "BSc": "bachelor",
    "BA": "bachelor",
    "MSc": "master",
    "MBA": "master",
    "PhD": "doctorate",
}
FIELDS_OF_STUDY = [
    "Computer Science",
    "Mathematics",
    "Statistics",
    "Physics",
    "Economics",
    "Design",
    "Business Administration",
]
CERTIFICATIONS = [
    ("AWS Certified Solutions Architect", "Amazon Web Services"),
    ("Certified Kubernetes Administrator", "Cloud Native Computing Foundation"),
    ("Professional Scrum Master I", "Scrum.org"),
    ("Google Data Analytics", "Google"),
    ("Tableau Desktop Specialist", "Tableau"),
]
PROJECT_NAMES = [
    "Open data pipeline",
    "Churn model",
    "Design system",
    "Pricing engine",
    "Search relevance",
]
PUBLISHERS = ["arXiv", "IEEE", "ACM", "Medium"]

#: Companies with a fixed number of CURRENT employees; any other slug gets a derived one
#: (unknown-* is not found). Former employees: about a quarter as many, see former_count().
COMPANIES: dict[str, int] = {"acme": 137, "globex": 50, "initech": 0, "hooli": 1234, "umbrella": 7}
_NAMED_HANDLE = re.compile(r"^([a-z]{2,})-([a-z]{2,})(?:-\d{1,3})?$")
_EMPLOYEE_HANDLE = re.compile(r"^(.+)-(employee|former)-(\d{5})$")

#: How many people the search endpoint searches over ("person-00000" ...).
SEARCH_POPULATION = 3000

#: The employees list's sort orders (None: the stable order, current employees then former).
EMPLOYEE_SORTS = ("newest", "oldest", "recently_left")
SKILLS_MATCH = ("any", "all")  # any: production's default

#: The month everything is dated from: a fixed point, never the clock.
_NOW = 2024 * 12 + 5  # June 2024, as a month index (year * 12 + month - 1)
#: The day the records are dated from: the last day of ``_NOW``'s month.
REFERENCE_DATE = dt.date(2024, 6, 30)

#: The fields a sparse person lacks (the keys are absent, not empty).
SPARSE_FIELDS = ("summary", "positions", "geo")
#: Picked so that the handles the docs and tests name (ada, grace, ...) are full records.
SPARSE_SALT = "sparse-6"
