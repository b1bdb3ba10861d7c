"""``grpo-rewards train``: TRL's GRPOTrainer built from one config, with discovered rewards and tasks.

Modules, one job each: ``config`` (read, override, validate), ``data`` (tasks, files, Hub),
``model`` (the embedded default and any model path), ``manifest`` (run directory bookkeeping),
``plot`` (reward curves), ``runner`` (build and run the trainer), ``command`` (the CLI),
``tiny`` (a tiny random model for tests). Importing this package imports nothing heavy.
"""
