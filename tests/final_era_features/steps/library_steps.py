"""Every step domain of the library, so these feature files run on their own: bin/bdd tests/final_era_features."""

import importlib
import pkgutil

import llama_bdd.steplib

for module in pkgutil.iter_modules(llama_bdd.steplib.__path__):
    if not module.ispkg:  # the step core (a package) registers no step
        importlib.import_module(f"llama_bdd.steplib.{module.name}")
