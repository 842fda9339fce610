"""The values a user hands in: handles, company identifiers, the record kinds bought by value,
and each distinct raw value normalised once."""
