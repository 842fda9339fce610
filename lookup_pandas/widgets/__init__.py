"""Notebook widgets: the SearchPanel (people and companies).

Example: ``lp.SearchPanel()``, as the last line of a cell.
"""
