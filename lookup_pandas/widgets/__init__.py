"""Notebook widgets: the SearchPanel (people and companies)."""
