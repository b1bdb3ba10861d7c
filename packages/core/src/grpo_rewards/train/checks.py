"""Value checks TRL does not do: ranges of the ``grpo:`` fields, vLLM, trackers, the ``peft:`` block.

Each check returns a list of one-line problems naming the key, so a config's problems are
reported together. TRL accepts ``per_device_train_batch_size=0`` or ``max_steps=-5`` and fails
later (or trains three epochs); ``use_vllm`` or ``report_to: wandb`` without the package fail
after the model has loaded.

>>> grpo_range_problems({"max_steps": -5, "learning_rate": 1e-5, "per_device_train_batch_size": 0})
['grpo.max_steps: expected a positive number of steps (or -1 to train num_train_epochs), got -5', \
'grpo.per_device_train_batch_size: expected an integer >= 1, got 0']
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
from pathlib import Path
from typing import Any

from ..errors import did_you_mean, quote

#: key: (kind, low, low_inclusive, high) with kind "int" or "number"; ``None`` bounds are open.
RANGES: dict[str, tuple[str, float | None, bool, float | None]] = {
    "per_device_train_batch_size": ("int", 1, True, None),
    "gradient_accumulation_steps": ("int", 1, True, None),
    "num_generations": ("int", 2, True, None),
    "max_completion_length": ("int", 1, True, None),
    "num_iterations": ("int", 1, True, None),
    "steps_per_generation": ("int", 1, True, None),
    "generation_batch_size": ("int", 1, True, None),
    "save_total_limit": ("int", 1, True, None),
    "top_k": ("int", 0, True, None),
    "seed": ("int", 0, True, None),
    "learning_rate": ("number", 0, False, None),
    "num_train_epochs": ("number", 0, False, None),
    "logging_steps": ("number", 0, False, None),
    "save_steps": ("number", 0, False, None),
    "temperature": ("number", 0, False, None),
    "top_p": ("number", 0, False, 1),
    "min_p": ("number", 0, True, 1),
    "repetition_penalty": ("number", 0, False, None),
    "beta": ("number", 0, True, None),
    "epsilon": ("number", 0, False, None),
    "epsilon_high": ("number", 0, False, None),
    "warmup_steps": ("number", 0, True, None),
    "weight_decay": ("number", 0, True, None),
    "max_grad_norm": ("number", 0, True, None),
    "vllm_gpu_memory_utilization": ("number", 0, False, 1),
    "top_entropy_quantile": ("number", 0, True, 1),
}

#: ``report_to`` names: (module to import, what to pip install).
TRACKERS = {
    "tensorboard": ("tensorboard", "tensorboard"),
    "wandb": ("wandb", "wandb"),
    "trackio": ("trackio", "trackio"),
    "mlflow": ("mlflow", "mlflow"),
    "comet_ml": ("comet_ml", "comet-ml"),
    "clearml": ("clearml", "clearml"),
    "dvclive": ("dvclive", "dvclive"),
    "swanlab": ("swanlab", "swanlab"),
    "codecarbon": ("codecarbon", "codecarbon"),
}
VLLM_MODES = ("colocate", "server")


def _range_problem(key: str, value: Any, spec: tuple[str, float | None, bool, float | None],
                   section: str = "grpo") -> str | None:
    kind, low, inclusive, high = spec
    is_int = isinstance(value, int) and not isinstance(value, bool)
    is_number = (is_int or isinstance(value, float)) and not (isinstance(value, float) and math.isnan(value))
    if kind == "int":
        ok = is_int and (low is None or value >= low)
        want = f"an integer >= {low:g}" if low is not None else "an integer"
    else:
        ok = is_number and (low is None or (value >= low if inclusive else value > low))
        ok = ok and (high is None or value <= high)
        bounds = (f" {'>=' if inclusive else '>'} {low:g}" if low is not None else "") + (
            f" and <= {high:g}" if high is not None else "")
        want = f"a number{bounds}"
    return None if ok else f"{section}.{key}: expected {want}, got {value!r}"


def grpo_range_problems(grpo: dict[str, Any]) -> list[str]:
    """Out-of-range values among the ``grpo:`` keys a config sets (``None`` means TRL's default)."""
    problems = []
    max_steps = grpo.get("max_steps")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or (max_steps <= 0 and max_steps != -1)):
        problems.append(f"grpo.max_steps: expected a positive number of steps (or -1 to train num_train_epochs), "
                        f"got {max_steps!r}")
    for key, spec in RANGES.items():
        if grpo.get(key) is not None:
            problem = _range_problem(key, grpo[key], spec)
            if problem:
                problems.append(problem)
    return problems


#: GRPOConfig fields TRL reads only when it trains: an unknown value is a ``ValueError`` at the first step, after
#: the model has loaded and generated (``loss_type: dapoo`` on a GPU: minutes, or a vLLM start, lost)
TRAINED_CHOICES = ("loss_type", "scale_rewards", "multi_objective_aggregation", "importance_sampling_level")


def trainer_choices(source: str | None = None) -> dict[str, frozenset[str]]:
    r"""The values of :data:`TRAINED_CHOICES` the installed ``GRPOTrainer`` tells apart, read from its own source
    (``self.loss_type == "cispo"``, ``self.scale_rewards in ["group", "none"]``), so a TRL that adds one is followed;
    a field whose comparisons are not found there is left out (not checked).

    >>> sorted(trainer_choices('if self.loss_type == "a": ...\nelif self.loss_type in ["b", "c"]: ...')["loss_type"])
    ['a', 'b', 'c']
    """
    if source is None:
        spec = importlib.util.find_spec("trl")
        folder = Path(spec.origin).parent if spec is not None and spec.origin else None
        try:
            source = (folder / "trainer" / "grpo_trainer.py").read_text(encoding="utf-8") if folder else ""
        except OSError:
            source = ""
    found = {}
    for key in TRAINED_CHOICES:
        values = set(re.findall(rf'self\.{key} == "(\w+)"', source))
        for listed in re.findall(rf"self\.{key} in \[([^\]]*)\]", source):
            values.update(re.findall(r'"(\w+)"', listed))
        if values:
            found[key] = frozenset(values)
    return found


def choice_problems(grpo: dict[str, Any]) -> list[str]:
    """Values of :data:`TRAINED_CHOICES` the installed TRL would refuse at its first step (read only when one is set)."""
    asked = {key: grpo[key] for key in TRAINED_CHOICES if isinstance(grpo.get(key), str)}
    known = trainer_choices() if asked else {}
    return [f"grpo.{key}: expected one of {', '.join(sorted(known[key]))}, got {value!r}"
            f"{did_you_mean(value, sorted(known[key]))} (TRL would stop at its first step)"
            for key, value in asked.items() if key in known and value not in known[key]]


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def integration_problems(grpo: dict[str, Any]) -> list[str]:
    """``use_vllm`` without vLLM, an unknown ``vllm_mode``, a tracker whose package is missing, a value of
    :data:`TRAINED_CHOICES` the installed TRL would refuse when it trains."""
    problems = choice_problems(grpo)
    if grpo.get("use_vllm"):
        mode = grpo.get("vllm_mode", "colocate")
        if mode not in VLLM_MODES:
            problems.append(f"grpo.vllm_mode: expected one of {', '.join(VLLM_MODES)}, got {mode!r}")
        if not installed("vllm"):
            problems.append("grpo.use_vllm: vLLM is not installed: pip install vllm (a CUDA GPU is needed; "
                            "vllm_mode: server also needs `trl vllm-serve --model MODEL` running)")
    report_to = grpo.get("report_to")
    if report_to is not None and not isinstance(report_to, (str, list, tuple)):
        return [*problems, f"grpo.report_to: expected a tracker name or a list of them, got {quote(report_to)}"]
    names = [report_to] if isinstance(report_to, str) else list(report_to or [])
    for name in names:
        if not isinstance(name, str):
            problems.append(f"grpo.report_to: expected tracker names (text), got {quote(name)}")
            continue
        if name in ("none", "all"):
            continue
        if name not in TRACKERS:
            problems.append(f"grpo.report_to: unknown tracker {name!r}; known: {', '.join(TRACKERS)}, none, all")
            continue
        module, package = TRACKERS[name]
        if not installed(module) and not (name == "tensorboard" and installed("tensorboardX")):
            problems.append(f"grpo.report_to: {name} is not installed: pip install {package}")
    return problems


#: Keys of the ``peft:`` block that are ours, not LoraConfig's.
PEFT_OWN_KEYS = ("merge",)
#: LoraConfig fields peft takes as given and refuses only when it builds the adapter, after the model has loaded
#: (``r: 0``: "`r` should be a positive integer"; ``lora_dropout: 2``: torch's Dropout), as :data:`RANGES`
PEFT_RANGES: dict[str, tuple[str, float | None, bool, float | None]] = {
    "r": ("int", 1, True, None),
    "lora_alpha": ("number", 0, False, None),
    "lora_dropout": ("number", 0, True, 1),
}


def peft_problems(section: Any) -> list[str]:
    """Problems of the ``peft:`` block: peft missing, unknown LoraConfig keys, values LoraConfig rejects."""
    if section is None:
        return []
    if not isinstance(section, dict):
        return [f"peft: expected a mapping of LoraConfig fields (r, lora_alpha, target_modules, ...), got {section!r}"]
    if not installed("peft"):
        return ["peft: the peft package is not installed: pip install 'grpo-rewards[peft]' (or: pip install peft)"]
    from peft import LoraConfig

    fields = {f.name for f in dataclasses.fields(LoraConfig) if f.init}
    problems = [f"peft.{k}: not a LoraConfig field{did_you_mean(k, fields)}" for k in section
                if k not in fields and k not in PEFT_OWN_KEYS]
    problems += [problem for key, spec in PEFT_RANGES.items() if section.get(key) is not None
                 and (problem := _range_problem(key, section[key], spec, "peft")) is not None]
    merge = section.get("merge")
    if merge is not None and not isinstance(merge, bool):
        problems.append(f"peft.merge: expected true or false, got {merge!r}")
    if not problems:
        try:
            lora_config(section)
        except (TypeError, ValueError) as exc:
            problems.append(f"peft: LoraConfig rejected the values: {exc}")
    return problems


def target_module_problems(section: Any, folder: Path | None) -> list[str]:
    """``peft.target_modules`` that names no module of the model in ``folder`` (peft's own matching rule, over the
    model's architecture built without weights): peft raises "Target modules ... not found" only once the model has
    loaded. Nothing to say without a folder (a Hub id), without ``target_modules``, or for ``all-linear``."""
    targets = section.get("target_modules") if isinstance(section, dict) else None
    if folder is None or targets is None or targets == "all-linear" or not installed("peft"):
        return []
    import torch
    from peft.tuners.tuners_utils import check_target_module_exists
    from transformers import AutoConfig, AutoModelForCausalLM

    try:
        with torch.device("meta"):  # the modules' names and kinds, no memory for weights
            model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder))
        config = lora_config(section)
    except Exception:  # the model's own load, or LoraConfig's check, says what is wrong (in the run)
        return []
    modules = [(name, module) for name, module in model.named_modules() if name]
    if any(check_target_module_exists(config, name) for name, _ in modules):
        return []
    linear = sorted({name.rsplit(".", 1)[-1] for name, module in modules if isinstance(module, torch.nn.Linear)})
    return [f"peft.target_modules: {quote(targets)} names no module of the model (its linear layers: "
            f"{', '.join(linear)}); peft would stop once the model had loaded"]


def lora_config(section: dict[str, Any]) -> Any:
    """The ``peft.LoraConfig`` of a ``peft:`` block (a causal LM unless ``task_type`` says otherwise)."""
    from peft import LoraConfig

    kwargs = {k: v for k, v in section.items() if k not in PEFT_OWN_KEYS}
    kwargs.setdefault("task_type", "CAUSAL_LM")
    return LoraConfig(**kwargs)
