"""vLLM's startup validation that needs no GPU: the checks ``EngineArgs.create_engine_config()``, the
``vllm/config/*.py`` validators and ``vllm serve`` run before the engine touches a device.

Every check here is proven against the releases themselves: ``bench/oracle.py`` runs the launch cases of
``tests/data/oracle/cases.yaml`` through each release's own code and ``tests/checks/test_oracle.py`` asserts
that vlint refuses what vLLM refuses, with vLLM's message. Release boundaries cite the first release
whose source has the check (``[X.Y.Z] vllm/path.py:LINE``).

One module per vLLM config class or command; importing the package registers every check. Imports
vlint.launch and below (a part of vlint.checks).
"""

from vlint.checks.startup import (  # noqa: F401 - each module registers its checks
    bounds,
    cache,
    compilation,
    config_keys,
    ignored,
    lora,
    model,
    parallel,
    requires,
    scheduler,
    serve,
    speculative,
)
