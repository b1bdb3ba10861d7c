"""TRL's GRPOTrainer built from a checked plan, trained, and its result saved.

The trainer is TRL's own, with one addition: its model card names the base model (TRL writes
"fine-tuned version of [None]" for a local folder such as the converted embedded model). A
``peft:`` block becomes ``GRPOTrainer(peft_config=LoraConfig(...))``; checkpoints then hold the
adapter, ``--resume`` continues it, and ``peft: {merge: true}`` also writes the merged model to
``RUN_DIR/merged``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ModelError, RewardError, RewardSetError, TrainError
from ..rewardset import name_clashes
from . import rundir
from .checks import lora_config
from .progress import say


def build_trainer(plan: Any, model_path: str, args: Any, callbacks: list[Any], base_model: str) -> Any:
    """``GRPOTrainer`` for ``plan``; a model that cannot load is a one-line :class:`ModelError`.

    Reward functions that share a name are refused first: TRL would merge their metrics silently.
    """
    clashes = name_clashes([(str(i + 1), f) for i, f in enumerate(plan.reward_set.reward_funcs)])
    if clashes:
        raise RewardSetError(clashes, "reward_funcs")
    from trl import GRPOTrainer

    class Trainer(GRPOTrainer):
        """GRPOTrainer whose model card names the model it started from."""

        def create_model_card(self, *args: Any, **kwargs: Any) -> None:
            if self.is_world_process_zero():
                rundir.record_files(Path(str(self.args.output_dir)), "README.md")
            super().create_model_card(*args, **kwargs)
            card = Path(str(self.args.output_dir)) / "README.md"
            if self.is_world_process_zero() and card.is_file():
                text = card.read_text(encoding="utf-8")
                hub_id = "/" in base_model and " " not in base_model
                link = f"[{base_model}](https://huggingface.co/{base_model})" if hub_id else base_model
                fixed = text.replace("[None](https://huggingface.co/None)", link)
                if fixed != text:
                    card.write_text(fixed, encoding="utf-8")

    peft = plan.config.get("peft")
    extra: dict[str, Any] = {}
    if peft is not None:
        extra["peft_config"] = lora_config(peft)
    environment = getattr(plan, "environment", None)
    if environment is not None:  # TRL's tool loop: the factory, and a template that can render tool calls
        from .environment import tool_tokenizer

        extra["environment_factory"] = environment.factory
        extra["processing_class"] = tool_tokenizer(model_path)
    try:
        return Trainer(model=model_path, reward_funcs=plan.reward_set.reward_funcs, args=args,
                       train_dataset=plan.dataset, callbacks=[files_callback(plan.run_dir), *callbacks], **extra)
    except OSError as exc:  # an unknown Hub id, no network, a folder without weights
        raise ModelError(f"cannot load model {plan.config['model']!r}: {exc}".strip()) from exc


def files_callback(run_dir: Path) -> Any:
    """A ``TrainerCallback`` that records what TRL writes into the run folder
    (:func:`~grpo_rewards.train.rundir.record_files`): the ``checkpoint-N`` of each save before it is
    written, the logging folder when it lies inside; and that drops the checkpoints TRL rotated away."""
    from transformers import TrainerCallback

    class RunFilesCallback(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if not state.is_world_process_zero:
                return
            # the run's record exists from its first step on (the run files are written then), so the
            # logging folder TensorBoard made at train begin is recorded at the end of a step
            logging_dir = getattr(args, "logging_dir", None)
            if logging_dir:
                try:
                    inside = Path(logging_dir).resolve().relative_to(run_dir.resolve()).parts
                except ValueError:
                    inside = ()
                if inside and (run_dir / inside[0]).exists():
                    rundir.record_files(run_dir, inside[0])
            if control.should_save:  # the save comes right after this call
                rundir.record_files(run_dir, f"checkpoint-{state.global_step}")

        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if state.is_world_process_zero:
                rundir.record_files(run_dir, f"checkpoint-{state.global_step}")
                rundir.forget_missing_files(run_dir)

    return RunFilesCallback()


def finish(plan: Any, trainer: Any) -> None:
    """Train (resuming when the plan says so), then save the final model to ``final/`` (and the merged one)."""
    try:
        trainer.train(resume_from_checkpoint=str(plan.resume_from) if plan.resume_from else None)
    except RewardError as exc:
        saved = rundir.last_checkpoint(plan.run_dir)
        keep = (f"The run directory keeps {saved.name}; fix the reward and continue with --resume."
                if saved else "No checkpoint was saved yet; fix the reward and start again.")
        raise TrainError(f"training stopped at step {trainer.state.global_step}: {exc}. {keep}") from exc
    # What TRL's scripts do at the end (trainer.save_model), into RUN_DIR/final: the trained model (the
    # adapter with LoRA) and its tokenizer, loadable with from_pretrained, whatever the checkpoints kept.
    saved = plan.run_dir / rundir.FINAL
    if trainer.is_world_process_zero():
        rundir.record_files(plan.run_dir, rundir.FINAL)
    trainer.save_model(str(saved))  # every rank calls it: sharded models are gathered first
    merged = ""
    peft = plan.config.get("peft") or {}
    if peft.get("merge") and trainer.is_world_process_zero():
        target = plan.run_dir / rundir.MERGED
        rundir.record_files(plan.run_dir, rundir.MERGED)
        model = trainer.model.merge_and_unload()
        model.save_pretrained(str(target), safe_serialization=True)
        trainer.processing_class.save_pretrained(str(target))
        merged = f", merged model in {target}"
    say(f"grpo-rewards: done at step {trainer.state.global_step}; "
         f"{'adapter' if plan.config.get('peft') else 'model'} in {saved}{merged}, "
         f"metrics in {plan.run_dir / rundir.METRICS}, reward curves in {plan.run_dir / rundir.PLOT}")
