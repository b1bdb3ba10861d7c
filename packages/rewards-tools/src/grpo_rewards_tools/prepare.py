"""A row's own tools rendered into that row's prompt, through the chat template's tool section.

TRL renders only its global ``tools=`` into prompts; a dataset whose rows each carry their own
tools (xLAM, BFCL, Hermes, ToolACE, Glaive, or a native ``tools`` column) needs each row's prompt
rendered with that row's tools before training. :func:`prepare_row` does it for one row, in any
format :mod:`grpo_rewards_tools.rows` reads: the row's prompt messages and tools go through the
tokenizer's ``apply_chat_template(messages, tools=..., add_generation_prompt=True)``, and the row
keeps its columns (the rewards read its gold from them) with ``prompt`` replaced by the rendered
text. Completions are then text, and the rewards read the calls the model writes
(``<tool_call>`` blocks for Qwen/Hermes templates). Use it with ``datasets.Dataset.map``::

    from functools import partial
    from grpo_rewards_tools import prepare_row
    dataset = dataset.map(partial(prepare_row, tokenizer=tokenizer))

The tokenizer's template must render tools (Qwen2.5's does; TRL ships it as
``trl/chat_templates/qwen2_5.jinja`` for models whose own template does not). Hermes and Glaive rows
already describe their tools in the system turn's text: pass ``tools_in_template=False`` to keep
that text as the only description.

>>> class Echo:  # any tokenizer-like object with apply_chat_template
...     def apply_chat_template(self, messages, tools=None, add_generation_prompt=False, tokenize=True):
...         return f"{[t['function']['name'] for t in tools or []]} {messages[-1]['content']}"
>>> prepare_row({"query": "Weather in Paris?", "tools": '[{"name": "get_weather", "parameters": {}}]',
...              "answers": '[{"name": "get_weather", "arguments": {}}]'}, tokenizer=Echo())["prompt"]
"['get_weather'] Weather in Paris?"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .rows import RowFormatError, read_row


def row_messages_and_tools(row: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The row's prompt messages and its tools in OpenAI's function format; raises RowFormatError."""
    read = read_row(row)
    if not read.messages:
        raise RowFormatError(f"a {read.format} row without prompt messages (a 'prompt' list of messages, "
                             "'query', 'question' or a conversation)")
    return [dict(m) for m in read.messages], [tool.openai() for tool in read.tools]


def prepare_row(row: Mapping[str, Any], *, tokenizer: Any, tools_in_template: bool = True,
                **template_kwargs: Any) -> dict[str, Any]:
    """``row`` with ``prompt`` set to its messages rendered with its own tools by ``tokenizer``'s chat template."""
    messages, tools = row_messages_and_tools(row)
    prompt = tokenizer.apply_chat_template(messages, tools=tools if tools_in_template and tools else None,
                                           add_generation_prompt=True, tokenize=False, **template_kwargs)
    return {**row, "prompt": prompt}
