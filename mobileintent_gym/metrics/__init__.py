"""Scores of the source studies, one module per family; each cites its formula."""
