"""Transport and access: TLS, API key files, endpoint switches; the steps live in llama_bdd.steplib.transport."""

from llama_bdd.steplib.transport import *  # noqa: F401,F403
