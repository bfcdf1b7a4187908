"""Output flattening and the comparison of a captured run with eager, on real tensors."""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np
import pytest
import torch
from capmap.compare import clone_inputs, compare, flatten, summary


class Pair(NamedTuple):
    first: torch.Tensor
    second: torch.Tensor


@dataclasses.dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor
    label: str = "x"


class Wrapped:
    """Like kornia's tensor wrappers: the tensor sits in `.data`."""

    def __init__(self, data: torch.Tensor) -> None:
        self.data = data


def test_flatten_walks_every_container_in_pytree_order() -> None:
    a, b, c, d, e, f = (torch.full((1,), float(i)) for i in range(6))
    value = {"z": a, "y": (b, [c, Pair(d, e)]), "x": Detections(f, a)}
    got = [float(t) for t in flatten(value)]
    assert got == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]


def test_flatten_unwraps_data_attributes_and_skips_plain_values() -> None:
    t = torch.arange(3)
    assert [x is t for x in flatten([Wrapped(t), 3, "s", None, 2.5])] == [True]
    assert flatten(7) == []
    assert flatten({"a": None, "b": "text"}) == []


def test_flatten_accepts_numpy_arrays_as_runtime_outputs() -> None:
    (t,) = flatten([np.arange(4, dtype=np.float32)])
    assert t.dtype == torch.float32 and t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_flatten_does_not_loop_on_self_reference() -> None:
    loop: list = [torch.ones(1)]
    loop.append(loop)
    assert len(flatten(loop)) >= 1


def test_summary_names_shape_and_dtype() -> None:
    assert summary(torch.zeros(1, 3, 32, 40)) == "Tensor[1,3,32,40] float32"
    assert summary(torch.tensor(True)) == "Tensor[] bool"


def test_clone_inputs_gives_independent_tensors_in_the_same_structure() -> None:
    x = torch.ones(2)
    pair = Pair(x, x)
    cloned = clone_inputs([x, (pair, {"k": x}), 4])
    cloned[0].add_(1)
    cloned[1][0].first.add_(1)
    assert x.tolist() == [1.0, 1.0]
    assert isinstance(cloned[1][0], Pair) and cloned[2] == 4


def test_equal_outputs_agree_and_report_the_largest_difference() -> None:
    e = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    a = e + torch.tensor([0.0, 1e-5, -2e-5], dtype=torch.float64)
    result = compare([e], [a], check=True, atol=1e-4, rtol=0.0)
    assert result.agrees
    assert result.max_abs_diff == pytest.approx(2e-5, rel=1e-3)


def test_values_beyond_tolerance_are_counted() -> None:
    e = torch.zeros(10)
    a = e.clone()
    a[2], a[7] = 0.5, -0.25
    result = compare([e], [a], check=True, atol=1e-3, rtol=1e-3)
    assert not result.agrees
    assert result.check_failed == "values"
    assert result.mismatched == 2
    assert result.max_abs_diff == pytest.approx(0.5)
    assert result.fields() == {"check_failed": "values", "mismatched": 2, "max_abs_diff": 0.5}


def test_relative_tolerance_scales_with_magnitude() -> None:
    e = torch.tensor([1000.0])
    assert compare([e], [e + 0.5], check=True, atol=0.0, rtol=1e-3).agrees
    assert not compare([e], [e + 2.0], check=True, atol=0.0, rtol=1e-3).agrees


def test_nan_positions_must_match_and_only_the_rest_is_compared() -> None:
    e = torch.tensor([1.0, math.nan, 3.0])
    assert compare([e], [torch.tensor([1.0, math.nan, 3.0])], check=True, atol=0, rtol=0).agrees
    moved = compare([e], [torch.tensor([math.nan, 2.0, 3.0])], check=True, atol=0, rtol=0)
    assert moved.check_failed == "nan" and moved.mismatched == 2


def test_infinities_agree_only_with_the_same_infinity() -> None:
    e = torch.tensor([math.inf, -math.inf, 1.0])
    assert compare([e], [e.clone()], check=True, atol=1e-3, rtol=1e-3).agrees
    flipped = compare([e], [torch.tensor([-math.inf, -math.inf, 1.0])], check=True, atol=1e-3, rtol=1e-3)
    assert flipped.check_failed == "values" and flipped.mismatched == 1
    finite = compare([e], [torch.tensor([1e30, -math.inf, 1.0])], check=True, atol=1e-3, rtol=1e-3)
    assert finite.check_failed == "values"


def test_booleans_must_be_equal() -> None:
    e = torch.tensor([True, False, True])
    assert compare([e], [e.clone()], check=True, atol=1.0, rtol=1.0).agrees
    result = compare([e], [torch.tensor([True, True, False])], check=True, atol=1.0, rtol=1.0)
    assert result.check_failed == "values" and result.mismatched == 2


def test_integer_outputs_of_another_width_compare_by_value() -> None:
    e = torch.tensor([[0, 1], [2, 3]], dtype=torch.int64)
    assert compare([e], [e.to(torch.int32)], check=True, atol=0, rtol=0).agrees


def test_complex_outputs_compare_real_and_imaginary_parts() -> None:
    e = torch.tensor([1 + 1j, 2 - 1j])
    assert compare([e], [e.clone()], check=True, atol=0, rtol=0).agrees
    assert not compare([e], [torch.tensor([1 + 1j, 2 + 1j])], check=True, atol=0.1, rtol=0).agrees


def test_count_and_shape_are_checked_first() -> None:
    e = torch.zeros(2, 3)
    count = compare([e, e], [e], check=True, atol=0, rtol=0)
    assert count.check_failed == "count" and "1 outputs" in count.detail
    shape = compare([e], [torch.zeros(3, 2)], check=True, atol=0, rtol=0)
    assert shape.check_failed == "shape" and "[3, 2]" in shape.detail


def test_unchecked_outputs_need_same_structure_and_finite_values_only() -> None:
    e = torch.rand(4)
    assert compare([e], [torch.rand(4)], check=False, atol=0, rtol=0).agrees
    assert compare([e], [torch.rand(4)], check=False, atol=0, rtol=0).max_abs_diff is None
    dtype = compare([e], [torch.rand(4, dtype=torch.float64)], check=False, atol=0, rtol=0)
    assert dtype.check_failed == "dtype"
    finite = compare([e], [torch.tensor([0.1, math.inf, math.nan, 0.2])], check=False, atol=0, rtol=0)
    assert finite.check_failed == "finite" and finite.mismatched == 2
    assert compare([e], [torch.rand(5)], check=False, atol=0, rtol=0).check_failed == "shape"


def test_empty_outputs_agree() -> None:
    e = torch.zeros(0, 2)
    assert compare([e], [torch.zeros(0, 2)], check=True, atol=0, rtol=0).agrees


def test_a_0d_array_stays_0d() -> None:
    # ONNX Runtime returns a scalar output as a 0-d array; it must compare with eager's 0-d tensor.
    scalar = np.array(1.4352812, dtype=np.float32)
    (t,) = flatten([scalar])
    assert t.shape == torch.Size([]) and t.dtype == torch.float32
    assert compare([torch.tensor(1.4352812)], flatten([scalar]), check=True, atol=1e-6, rtol=0).agrees
    matrix = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert [x.shape for x in flatten((scalar, matrix))] == [torch.Size([]), torch.Size([2, 3])]


def test_values_all_within_the_tolerance_of_zero_verify_nothing() -> None:
    tiny = torch.full((2, 3), 2e-13)
    result = compare([tiny], [torch.zeros(2, 3)], check=True, atol=2e-4, rtol=1e-4)
    assert result.agrees and result.vacuous is not None
    assert "max |eager| 2e-13, atol 0.0002" in result.vacuous


@pytest.mark.parametrize(
    "outputs",
    [
        [torch.tensor([0.0, 1e-3])],  # one value beyond the tolerance: a wrong capture shows
        [torch.zeros(2), torch.tensor([1, 0])],  # an integer output is compared exactly
        [torch.tensor([0.0, float("inf")])],  # an infinity must be matched
    ],
)
def test_a_value_beyond_the_tolerance_makes_the_comparison_real(outputs: list[torch.Tensor]) -> None:
    result = compare(outputs, [t.clone() for t in outputs], check=True, atol=2e-4, rtol=1e-4)
    assert result.agrees and result.vacuous is None


def test_an_unchecked_comparison_is_never_called_vacuous() -> None:
    zeros = torch.zeros(3)
    assert compare([zeros], [zeros], check=False, atol=2e-4, rtol=1e-4).vacuous is None
