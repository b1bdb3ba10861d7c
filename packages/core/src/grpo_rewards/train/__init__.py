"""``grpo-rewards train``: TRL's GRPOTrainer built from one config, with discovered rewards and tasks.

Modules, one job each: ``config`` (read, override, validate), ``checks`` (values TRL does not check),
``data`` (tasks, files, Hub), ``model`` (the embedded default and any model path), ``environment``
(TRL's ``environment_factory``), ``plan`` (every cheap check before a run: ``prepare`` -> ``Plan``),
``runner`` (carry a plan out: ``run``, ``train``), ``trainer`` (GRPOTrainer built and trained),
``rundir`` and ``lock`` (the run folder and its lock), ``manifest`` (what a run records), ``progress``
(what a person sees, the metrics log), ``plot`` (reward curves), ``tiny`` (a tiny random model for tests);
the command is :mod:`grpo_rewards.cli.train`. Importing this package imports nothing heavy.
"""
