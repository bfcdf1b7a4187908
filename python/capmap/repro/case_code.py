"""The case as the capture paths see it, spelled out in a repro script.

The export paths trace what the probes trace. With flattening on (capmap.capture), that is a
wrapper taking the tensors among the inputs and returning the tensors of the result; when every
input is a tensor or a plain constant the script spells that wrapper out, otherwise (library
objects rebuilt around tensors) it takes capmap's wrapper and says so.
"""

from __future__ import annotations

from typing import Any

from capmap.cases import Case
from capmap.repro.target import Target


def flattening(case: Case, settings: dict[str, Any]) -> bool:
    """Whether the probes trace capmap's flattening wrapper for this case (capmap.capture)."""
    try:
        from capmap.capture import flattening_wanted
    except ImportError:
        return False
    return bool(flattening_wanted(case, settings))


def input_layout(case: Case) -> list[int | None] | None:
    """For inputs that are each a tensor or a constant without tensors: which graph input each
    tensor is (a tensor passed twice is one graph input), None for a constant. None when an
    input holds tensors inside a container or an object, when a method's object is opened as a
    graph input, or when a network is among the inputs (capmap's wrapper handles those)."""
    from capmap.capture import _Const, _Leaf, has_receiver, plan_inputs

    if has_receiver(case):
        return None
    plan = plan_inputs(list(case.inputs))
    if plan.networks:
        return None
    layout: list[int | None] = []
    for node in plan.nodes:
        if isinstance(node, _Leaf):
            layout.append(node.index)
        elif isinstance(node, _Const):
            layout.append(None)
        else:
            return None
    return layout


def case_lines(case: Case, target: Target, flat: bool, layout: list[int | None] | None) -> list[str]:
    """`call`, `fresh_inputs`, `capture_module`, `capture_inputs` and the output flattening."""
    fn = f"getattr(target, {case.method!r})" if case.method else "target"
    lines = ["", "", "def call(*args):", f"    return {fn}(*args, **kwargs)", ""]
    if not flat:
        return lines + [
            "",
            "class CaseModule(torch.nn.Module):",
            '    """The case as a module: the target is registered so its parameters are traced."""',
            "",
            "    def __init__(self):",
            "        super().__init__()",
            "        if isinstance(target, torch.nn.Module):",
            "            self.target = target",
            "",
            "    def forward(self, *args):",
            "        return call(*args)",
            "",
            "",
            "def fresh_inputs():",
            "    # Every run gets its own copy of the inputs, so no run sees another's mutations.",
            "    return tuple(clone_inputs(inputs))",
            "",
            "",
            "",
            "",
            "def output_tensors(result):",
            "    return flatten(result)  # the tensors of a result",
            "",
            "",
            "capture_module, capture_inputs, captured_tensors = CaseModule, fresh_inputs, output_tensors",
        ]
    if layout is not None:
        unique = sorted({i for i in layout if i is not None})
        first = [layout.index(i) for i in unique]
        graph = ", ".join(f"inputs[{p}]" for p in first)
        args = ", ".join(f"tensors[{i}]" if i is not None else f"inputs[{p}]" for p, i in enumerate(layout))
        return lines + [
            "",
            "# capmap traces a wrapper: the tensors among the inputs go in (the other inputs are baked",
            "# in as constants) and the tensors of the result come out.",
            f"graph_inputs = [{graph}]",
            "",
            "",
            "def rebuild(tensors):",
            f"    return [{args}]",
            "",
            "",
            "class CaseModule(torch.nn.Module):",
            '    """Tensors in, tensors out; the target is registered so its parameters are traced."""',
            "",
            "    def __init__(self):",
            "        super().__init__()",
            "        if isinstance(target, torch.nn.Module):",
            "            self.target = target",
            "",
            "    def forward(self, *tensors):",
            "        out = flatten_output(call(*rebuild(tensors)))",
            "        return out[0] if len(out) == 1 else tuple(out)",
            "",
            "",
            "def capture_inputs():",
            "    return tuple(t.detach().clone() for t in graph_inputs)",
            "",
            "",
            "def fresh_inputs():",
            "    # Every run gets its own copy of the inputs, so no run sees another's mutations.",
            "    return tuple(rebuild(capture_inputs()))",
            "",
            "",
            "def output_tensors(result):",
            "    return flatten_output(result)  # the tensors of the case's result",
            "",
            "",
            "def captured_tensors(result):",
            "    return tensors_of(result)  # the tensors a captured run returned",
            "",
            "",
            "capture_module = CaseModule",
        ]
    return lines + [
        "",
        "# Library objects among the inputs: capmap's wrapper rebuilds them around the graph's tensors",
        "# (the tensors inside them go in, the tensors of the result come out). This is capmap's code.",
        "from capmap.capture import flat_case",
        "from capmap.cases import Case",
        "",
        f"flat = flat_case(Case({case.name!r}, 'repro', target, inputs, kwargs, method={case.method!r}))",
        "call = flat.call  # a method's object comes first among the rebuilt inputs",
        "capture_module = lambda: flat.module  # noqa: E731",
        "capture_inputs = flat.plan.fresh_tensors",
        "",
        "",
        "def fresh_inputs():",
        "    return tuple(flat.plan.rebuild(flat.plan.fresh_tensors()))",
        "",
        "",
        "def output_tensors(result):",
        "    return flatten_output(result)  # the tensors of the case's result",
        "",
        "",
        "def captured_tensors(result):",
        "    return tensors_of(result)  # the tensors a captured run returned",
    ]
