"""The behave step library of llama-bdd: typed scenario state, hooks, and steps grouped by domain.

``features/steps/*.py`` import these modules; each step function carries a docstring with a Gherkin example.
"""
