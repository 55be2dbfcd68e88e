"""llama-bdd: behave acceptance tests for llama.cpp's llama-server.

``llama_bdd.harness`` drives the server and knows nothing of behave;
``llama_bdd.steplib`` is the behave step library built on it.
"""
