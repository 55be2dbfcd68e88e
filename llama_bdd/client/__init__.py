"""Floor 2 of llama-bdd: a client for llama-server's HTTP API, one module per API area.

Each module holds what the suite knows of one area: request builders, typed answers, answer parsing and
the structural checks on them (status, ``error.type``, token counts, stream shapes). It knows nothing of
behave: everything here takes a harness ``HttpClient`` (or a base URL) and plain values, so it works from
a plain script and in unit tests against a fake server. A failed check raises ``AssertionError`` with the
exchange that proves it (see ``checks``).

Floors: ``llama_bdd.harness`` (process, launch, HTTP, provisioning) < ``llama_bdd.client`` (this package)
< ``llama_bdd.steplib`` (the behave steps, thin).
"""
