"""First-party environments for TRL's tool loop, registered as ``tools.calculator``, ``tools.sqlite`` and
``tools.python``, with the tasks ``tools:calculator`` and ``tools:sqlite`` (:mod:`.registration`).

Each is a plain class following TRL's environment contract (``reset(**row)``, public methods as
tools, ``get_reward()`` where it owns a reward), so it also works in a plain TRL script:
``GRPOTrainer(environment_factory=Calculator, ...)``. Importing this package loads none of them.
"""
