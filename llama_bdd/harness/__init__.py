"""The llama-server harness: provisioning, launch arguments, capabilities, processes, HTTP. No behave here."""
