"""The ``environment:`` of a training config: TRL's ``environment_factory``, and a tool-capable chat template.

``environment:`` is a registered environment's name (``tools.calculator``), ``{use: NAME, with:
{...}}`` with its parameters, or, for a dataset whose rows carry an ``environment`` column, a
mapping from that column's values to such entries (``{calc: tools.calculator, db: tools.sqlite}``:
TRL's dict form), where a row whose ``environment`` is empty (``None``) gets no tools (:class:`NoEnvironment`).
Without one, the task's environment (a task registered with ``environment=``).
An environment that owns a reward adds that reward to the set under its own name (weight 1 unless
the set names it), and TRL does not score it again (:class:`~grpo_rewards.environment.EnvironmentFactory`).

TRL refuses a chat template that cannot render a tool-calling conversation; the embedded SmolLM2's
ChatML template and the tiny test model's are such. :func:`tool_tokenizer` then gives the tokenizer
TRL's own tool-capable ChatML template (``trl/chat_templates/qwen2_5.jinja``) when the tokenizer
speaks ChatML, and raises a :class:`~grpo_rewards.errors.ModelError` saying what to do otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import params as params_module
from ..backends import Execution, execution_problems
from ..environment import TAG, EnvironmentFactory, EnvironmentInfo
from ..errors import GrpoRewardsError, ModelError, quote

#: ``max_tool_calling_iterations`` when the config leaves it unset (TRL's default, ``None``, is no limit).
DEFAULT_TOOL_ITERATIONS = 8

#: TRL's tool-capable ChatML template, given to a ChatML tokenizer whose own template has no tool support.
TOOL_TEMPLATE = "qwen2_5.jinja"


class NoEnvironment:
    """The environment of a row whose ``environment`` column is empty (``None``) in a run with a mapping of
    environments: no tools, no reward (TRL renders the row's prompt without a tool section). A dataset that mixes
    tool rows with rows of other tasks trains so, where TRL alone stops at the first such row."""

    def reset(self, **row: Any) -> None:
        """Nothing to set up."""
        return None


setattr(NoEnvironment, TAG, "")  # every environment reward reads its rollouts as another environment's


@dataclass
class EnvironmentPlan:
    """The environments of a run: ``{key: (info, params)}`` (key ``None`` for the single form), and
    where each runs: ``{key: (execution, timeout)}`` for those whose entry says (a Ray cluster)."""

    chosen: dict[str | None, tuple[EnvironmentInfo, dict[str, Any]]] = field(default_factory=dict)
    placed: dict[str | None, tuple[Execution, float | None]] = field(default_factory=dict)

    @property
    def factory(self) -> Any:
        """What ``GRPOTrainer(environment_factory=...)`` gets: one factory, or a dict of them."""
        factories = {key: EnvironmentFactory(info, params, execution=self.placed.get(key, (None, None))[0],
                                             timeout=self.placed.get(key, (None, None))[1])
                     for key, (info, params) in self.chosen.items()}
        if list(factories) == [None]:
            return factories[None]
        return {**factories, None: NoEnvironment}  # (the mapping's keys are text: None is a row without one)

    def prepare(self) -> list[str]:
        """Connect to the Ray cluster of each environment whose tools run there, now (an
        :class:`~grpo_rewards.errors.ExecutionError` when it cannot be reached, before the model
        loads); one line for each saying where its tools run."""
        from ..execution.ray_backend import get_ray_backend
        from ..execution.ray_environment import DEFAULT_TIMEOUT

        lines = []
        for key, (execution, timeout) in self.placed.items():
            get_ray_backend(execution.address or "auto").connect()
            info = self.chosen[key][0]
            lines.append(f"environment {info.name} runs its tools on {execution.backend} (address "
                         f"{execution.address}), one actor per instance, "
                         f"{DEFAULT_TIMEOUT if timeout is None else timeout:g} s per call")
        return lines

    def describe(self) -> str:
        """The environments in a line of the run's header and its dry run: ``environment tools.calculator``, or
        ``environments calc: tools.calculator, db: tools.sqlite`` for a dataset's ``environment`` column."""
        if list(self.chosen) == [None]:
            return f"environment {self.chosen[None][0].name}"
        return "environments " + ", ".join(f"{key}: {info.name}" for key, (info, _) in self.chosen.items())

    def reward_entries(self) -> list[dict[str, Any]]:
        """The reward-set entries of the environments that own a reward (each environment once)."""
        out: list[dict[str, Any]] = []
        for info, params in self.chosen.values():
            if info.owns_reward and not any(e["use"] == info.name for e in out):
                out.append({"use": info.name, **({"with": dict(params)} if params else {})})
        return out

    def manifest(self) -> list[dict[str, Any]]:
        """What the manifest records: each environment with its parameters, plugin, distribution and version."""
        out = []
        for key, (info, params) in self.chosen.items():
            record: dict[str, Any] = {
                "key": key, "name": info.name, "params": params, "owns_reward": info.owns_reward,
                "plugin": info.plugin, "distribution": info.distribution, "version": info.version}
            if key in self.placed:
                execution, timeout = self.placed[key]
                record["execution"] = execution.as_dict()
                record["timeout"] = timeout
            out.append(record)
        return out


#: The keys of an environment entry: its name, parameters, and where its tools run (a Ray cluster).
ENTRY_KEYS = ("use", "with", "execution", "timeout")


def _entry(raw: Any, where: str) -> tuple[str | None, dict[str, Any], list[str], tuple[Execution, float | None] | None]:
    if isinstance(raw, str):
        return raw, {}, [], None
    if isinstance(raw, dict) and isinstance(raw.get("use"), str):
        unknown = sorted(set(raw) - set(ENTRY_KEYS))
        params = raw.get("with") or {}
        problems = [f"{where}: unknown key(s) {', '.join(unknown)}; an environment entry has "
                    f"{', '.join(k + ':' for k in ENTRY_KEYS)}"] if unknown else []
        if not isinstance(params, dict):
            problems.append(f"{where}.with: expected a mapping of the environment's parameters, got {quote(params)}")
            params = {}
        placed = None
        if "execution" in raw or "timeout" in raw:
            found = [f"{where}.{p}" for p in execution_problems(raw.get("execution"))]
            timeout = raw.get("timeout")
            try:
                params_module.number(timeout, f"{where}.timeout", positive=True, none_ok=True)
            except ValueError as exc:
                found.append(str(exc))
                timeout = None
            if not found:
                execution = Execution.parse(raw.get("execution"))
                if timeout is not None and not execution.remote:
                    found.append(f"{where}.timeout: a deadline per tool call applies to an environment on Ray "
                                 "(execution: {backend: ray}); a local environment's tools bound their own work")
                placed = (execution, None if timeout is None else float(timeout))
            problems += found
        return raw["use"], dict(params), problems, placed
    return None, {}, [f"{where}: expected an environment name or {{use: NAME, with: {{...}}}}, got {quote(raw)}"], None


def plan_environment(spec: Any, registry: Any, task: Any = None) -> tuple[EnvironmentPlan | None, list[str]]:
    """The :class:`EnvironmentPlan` of ``environment:`` (``spec``; ``None``: the task's), and its problems."""
    if spec is None and task is not None:
        spec = getattr(task, "environment", None)
    if spec is None:
        return None, []
    if isinstance(spec, dict) and "use" not in spec:
        if not spec:
            return None, ["environment: an empty mapping; give a name, {use: NAME, with: {...}}, or a mapping from "
                          "the rows' environment column to such entries"]
        raw_entries: dict[str | None, Any] = {str(k): v for k, v in spec.items()}
    else:
        raw_entries = {None: spec}
    plan = EnvironmentPlan()
    problems: list[str] = []
    for key, raw in raw_entries.items():
        where = "environment" if key is None else f"environment.{key}"
        name, params, found, placed = _entry(raw, where)
        problems += found
        if name is None:
            continue
        if placed is not None and placed[0].remote:
            plan.placed[key] = placed
        try:
            info = registry.environment(name)
        except GrpoRewardsError as exc:
            problems.append(f"{where}: {exc}")
            continue
        found = info.check_params(params, where)
        if not found and key not in plan.placed:  # built once here, as a reward's factory is, so its own checks of
            try:                                  # the values run before the model loads (TRL builds the rest later;
                info.build(params)                # one whose tools run on Ray is built there)
            except GrpoRewardsError as exc:
                found.append(f"{where}: {exc}")
        problems += found
        plan.chosen[key] = (info, params)
    return (plan if plan.chosen and not problems else None), problems


def column_problems(plan: EnvironmentPlan, dataset: Any) -> list[str]:
    """A mapping needs the rows' ``environment`` column (TRL selects each row's environment by it), and every row's
    value among its keys: TRL raises ``ValueError`` at the batch that holds one that is not, mid-run."""
    if list(plan.chosen) == [None]:
        return []
    column_names = list(dataset.column_names)
    if "environment" not in column_names:
        return ["environment: a mapping of environments needs an 'environment' column in the dataset naming each "
                f"row's environment ({', '.join(map(str, plan.chosen))}); the dataset has: {', '.join(column_names)}"]
    unknown: dict[str, int] = {}  # each value the mapping does not name, as repr (NaN and lists too), its first row
    for i, value in enumerate(dataset["environment"]):  # (None: a row without tools, NoEnvironment)
        if not (value is None or (isinstance(value, str) and value in plan.chosen)):
            unknown.setdefault(repr(value), i)
    if unknown:
        shown = ", ".join(f"{value} (row {row})" for value, row in list(unknown.items())[:5])
        return [f"environment: the dataset's 'environment' column holds {len(unknown)} value(s) the mapping does not "
                f"name: {shown}; it names {', '.join(map(repr, plan.chosen))} (TRL would stop the run at the first "
                "batch holding one)"]
    return []


def tool_tokenizer(model_path: str) -> Any:
    """The model's tokenizer with a chat template TRL accepts for tool calling: its own when it has
    tool support, else TRL's tool-capable ChatML template for a ChatML tokenizer; else a :class:`ModelError`."""
    from transformers import AutoTokenizer
    from trl.chat_template_utils import supports_tool_calling

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    if supports_tool_calling(tokenizer):
        return tokenizer
    own = tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else ""
    if "<|im_start|>" not in own or tokenizer.convert_tokens_to_ids("<|im_start|>") in (None, tokenizer.unk_token_id):
        raise ModelError(f"the chat template of {model_path} cannot render tool calls (TRL's supports_tool_calling), "
                         "and it is not ChatML, so TRL's tool-capable ChatML template cannot replace it: use a model "
                         "whose template supports tools, or set its tokenizer's chat_template to one that does")
    import trl

    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / TOOL_TEMPLATE).read_text(encoding="utf-8")
    if not supports_tool_calling(tokenizer):  # pragma: no cover - TRL's own template
        raise ModelError(f"TRL's {TOOL_TEMPLATE} did not pass TRL's supports_tool_calling with {model_path}'s tokenizer")
    return tokenizer
