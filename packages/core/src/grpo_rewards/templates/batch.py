'''The ``--batch`` variant of ``grpo-rewards new-plugin``: a batch-form reward with a parameter (a class) and a
required dataset column, inserted into the plain package's files (:mod:`.plain`).
'''

BATCH_ROW = """\
| `$namespace.unique_mentions` | batch form, reads the `keyword` column: 1.0 for a completion that mentions its row's keyword and that no other completion of its prompt repeats, `repeat_value` for a repeat, 0.0 without the keyword | none |
"""

BATCH_MODULE = '''

class UniqueMentions:
    """A batch-form reward: it sees the whole group of completions of each prompt.

    1.0 for a completion that mentions its row's ``keyword`` (a required dataset column) and
    that no other completion of the same prompt repeats word for word; ``repeat_value`` for
    one that repeats another; 0.0 when the keyword is missing; ``None`` without readable text
    or a keyword. A batch reward takes its parameters in ``__init__`` (a class), receives TRL's
    call, and returns one value per completion.

    >>> reward = UniqueMentions(repeat_value=0.25)
    >>> reward(prompts=["Q", "Q", "Q"], completions=["sun is up", "sun is up", "no"], keyword=["sun"] * 3)
    [0.25, 0.25, 0.0]
    """

    def __init__(self, repeat_value: float = 0.0) -> None:
        if isinstance(repeat_value, bool) or not isinstance(repeat_value, (int, float)):
            raise ValueError(f"repeat_value must be a number, not {repeat_value!r}")
        self.repeat_value = float(repeat_value)

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None, *, keyword: Any,
                 **kwargs: Any) -> list[float | None]:
        texts = [completion_text(c) for c in completions]
        prompts = list(prompts) if prompts is not None else [None] * len(texts)
        seen = Counter((repr(p), t) for p, t in zip(prompts, texts, strict=True) if t is not None)
        values: list[float | None] = []
        for prompt, text, word in zip(prompts, texts, keyword, strict=True):
            if text is None or not isinstance(word, str) or not word:
                values.append(None)
            elif word.lower() not in text.lower():
                values.append(0.0)
            else:
                values.append(self.repeat_value if seen[(repr(prompt), text)] > 1 else 1.0)
        return values


UNIQUE_MENTIONS = RewardDefinition(
    "$namespace.unique_mentions",
    UniqueMentions,
    form="batch",
    columns=["keyword"],
    description="1.0 for a completion that mentions its keyword and is not repeated in its group.",
    output_range=(0.0, 1.0),
)


def make_unique_mentions(**params: Any) -> Reward:
    """``$namespace.unique_mentions`` with parameters, as a TRL reward function (batch form)."""
    return UNIQUE_MENTIONS.reward(**params)


#: ``GRPOTrainer(reward_funcs=[unique_mentions])`` (the dataset needs a ``keyword`` column), or
#: ``trl grpo --reward_funcs $module.unique_mentions``.
unique_mentions = make_unique_mentions()
'''

BATCH_TESTS = '''

def test_unique_mentions_scores_a_prompts_completions_together():
    completions = ["sun up", "sun up", "sun set", "sun up"]
    values = unique_mentions(prompts=["Q", "Q", "Q", "R"], completions=completions, keyword=["sun"] * 4)
    assert values == [0.0, 0.0, 1.0, 1.0]


def test_unique_mentions_needs_the_keyword_column(registered_plugin):
    from grpo_rewards import RewardSetError, load_reward_set

    with registered_plugin(plugin, "$namespace"), pytest.raises(RewardSetError, match="needs dataset column"):
        load_reward_set([{"use": "$namespace.unique_mentions"}], columns=["prompt"])


def test_unique_mentions_keeps_the_reward_contract():
    assert_reward_contract(unique_mentions, columns={"keyword": "sun"}, output_range=(0.0, 1.0))
'''

#: Template values of the plain package and of the --batch variant.
PLAIN = {"batch_row": "", "batch_module": "", "batch_tests": "", "batch_import": "", "batch_register": "",
         "batch_std": "", "batch_core": "", "batch_test_import": ""}
BATCH = {"batch_row": BATCH_ROW, "batch_module": BATCH_MODULE, "batch_tests": BATCH_TESTS,
         "batch_import": ", UNIQUE_MENTIONS", "batch_register": "\n    UNIQUE_MENTIONS.register(register)",
         "batch_std": "from collections import Counter\n", "batch_core": ", completion_text",
         "batch_test_import": ", unique_mentions"}
