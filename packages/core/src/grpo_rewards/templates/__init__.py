'''Templates of the package ``grpo-rewards new-plugin`` writes: ``{relative path: content}``.

All are ``string.Template`` strings over ``$namespace`` (``shout``), ``$module``
(``grpo_rewards_shout``), ``$distribution`` (``grpo-rewards-shout``), ``$title`` (``Shout``) and
``$core_requirement`` (``grpo-rewards>=0.1,<0.2``), plus the fields the variants fill. One module per
variant: :mod:`.plain` (the package every plugin gets: ``FILES``), :mod:`.batch` (``--batch``: a batch-form
reward; ``BATCH``, else ``PLAIN``) and :mod:`.environment` (``--environment``: an environment that owns its
reward; ``ENVIRONMENT``, else ``NO_ENVIRONMENT``). Kept as Python strings so they ship in the core's wheel
without package-data configuration.
'''

from .batch import BATCH, BATCH_MODULE, BATCH_ROW, BATCH_TESTS, PLAIN
from .environment import (
    ENVIRONMENT,
    ENVIRONMENT_HOOK,
    ENVIRONMENT_MODULE,
    ENVIRONMENT_ROW,
    ENVIRONMENT_TESTS,
    NO_ENVIRONMENT,
)
from .plain import CONFTEST, FILES, MODULE, PLUGIN, PYPROJECT, README, TESTS

__all__ = [
    "BATCH", "BATCH_MODULE", "BATCH_ROW", "BATCH_TESTS", "CONFTEST", "ENVIRONMENT", "ENVIRONMENT_HOOK",
    "ENVIRONMENT_MODULE", "ENVIRONMENT_ROW", "ENVIRONMENT_TESTS", "FILES", "MODULE", "NO_ENVIRONMENT", "PLAIN",
    "PLUGIN", "PYPROJECT", "README", "TESTS",
]
