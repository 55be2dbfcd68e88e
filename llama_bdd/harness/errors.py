"""Errors the harness raises; each message is meant to be read by a person as it is."""


class HarnessError(Exception):
    """Base class of every error the harness raises on purpose."""


class ProvisionError(HarnessError):
    """The embedded default server or model could not be made ready."""


class ServerStartError(HarnessError):
    """A llama-server process did not become healthy."""


class ModelNotFound(HarnessError):
    """A model file named by a scenario could not be found."""
