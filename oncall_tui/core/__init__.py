"""Pure rules with no I/O: validation, prompt assembly, memory policy, token estimates, events."""
