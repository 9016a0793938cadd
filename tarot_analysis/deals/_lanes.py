"""Vectors of lanes for the compiled core: many deals side by side in one register.

The dealer runs sixteen deals at once, one per 16-bit lane of a 256-bit vector, each lane
doing the same arithmetic on its own deal. Numba has no vector type of its own, so this module
gives kernels one: a :class:`Lanes` value is an LLVM vector of small integers that lives in
registers, with the usual operators (``+ - * & | ^ ~ << >>`` lane by lane, a scalar operand
being repeated in every lane; ``>>`` shifts zeros in whatever the lane type, and shift counts
stay below the lane width) and comparisons that give a mask per lane (all ones where true,
signed or unsigned as the lanes are). The functions below load and store lanes from arrays,
reinterpret their bits, and move lanes around; LLVM turns each into a few vector instructions
(AVX2 on the project's machine), and the results are the same on any processor.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import intrinsic, models, register_model

__all__ = [
    "Lanes",
    "any_lane",
    "broadcast",
    "halves",
    "lane_max",
    "lane_popcount",
    "load",
    "mul_high",
    "narrow",
    "splat_each",
    "store",
    "view",
    "with_item",
    "zip_lanes",
]

#: Bits of the vectors that :func:`load` reads: one AVX2 register.
REGISTER_BITS = 256


class Lanes(types.Type):
    """The numba type of a vector of ``count`` integers of type ``dtype``."""

    def __init__(self, dtype: Any, count: int) -> None:
        self.dtype: Any = dtype  # a numba integer type
        self.count = count
        super().__init__(name=f"Lanes({dtype} x {count})")

    @property
    def bits(self) -> int:
        """Bits of the whole vector."""
        return int(self.dtype.bitwidth) * self.count


@register_model(Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: Lanes) -> None:
        super().__init__(dmm, fe_type, _vector_type(fe_type))


def _vector_type(lanes: Lanes) -> ir.VectorType:
    return ir.VectorType(ir.IntType(lanes.dtype.bitwidth), lanes.count)


def _indices(values: list[int]) -> ir.Constant:
    return ir.Constant(ir.VectorType(ir.IntType(32), len(values)), values)


def _as_vector(context: Any, builder: Any, ty: Any, value: Any, lanes: Lanes) -> Any:
    """``value`` as a vector of type ``lanes``: a scalar is cast and repeated in every lane."""
    if isinstance(ty, Lanes):
        return value
    scalar = context.cast(builder, value, ty, lanes.dtype)
    undef = ir.Constant(_vector_type(lanes), ir.Undefined)
    first = builder.insert_element(undef, scalar, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(first, undef, _indices([0] * lanes.count))


def _operands(a: Any, b: Any) -> Lanes | None:
    """The vector type of a lane-wise operation on ``a`` and ``b``, or None if there is none."""
    if isinstance(a, Lanes) and (b == a or isinstance(b, types.Integer)):
        return a
    if isinstance(b, Lanes) and isinstance(a, types.Integer):
        return b
    return None


def _register_binary(op: Callable[..., Any], emit: Callable[[Any, Any, Any, Lanes], Any]) -> None:
    """Type and lower ``op`` on two vectors, or a vector and a scalar, as ``emit`` builds it."""

    class LaneWise(AbstractTemplate):
        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            lanes = _operands(*args) if len(args) == 2 and not kws else None
            return None if lanes is None else signature(lanes, *args)

    infer_global(op)(LaneWise)

    def lower(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        lanes = sig.return_type
        x = _as_vector(context, builder, sig.args[0], args[0], lanes)
        y = _as_vector(context, builder, sig.args[1], args[1], lanes)
        return emit(builder, x, y, lanes)

    for operands in [(Lanes, Lanes), (Lanes, types.Integer), (types.Integer, Lanes)]:
        lower_builtin(op, *operands)(lower)


def _register_unary(op: Callable[..., Any], emit: Callable[[Any, Any], Any]) -> None:
    """Type and lower ``op`` on one vector as ``emit`` builds it."""

    class LaneWise(AbstractTemplate):
        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            if len(args) == 1 and not kws and isinstance(args[0], Lanes):
                return signature(args[0], args[0])
            return None

    infer_global(op)(LaneWise)

    def lower(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return emit(builder, args[0])

    lower_builtin(op, Lanes)(lower)


def _arithmetic(method: str) -> Callable[[Any, Any, Any, Lanes], Any]:
    def emit(builder: Any, x: Any, y: Any, lanes: Lanes) -> Any:
        return getattr(builder, method)(x, y)

    return emit


def _comparison(symbol: str) -> Callable[[Any, Any, Any, Lanes], Any]:
    def emit(builder: Any, x: Any, y: Any, lanes: Lanes) -> Any:
        icmp = builder.icmp_signed if lanes.dtype.signed else builder.icmp_unsigned
        return builder.sext(icmp(symbol, x, y), x.type)

    return emit


for _name, _method in [
    ("add", "add"),
    ("sub", "sub"),
    ("mul", "mul"),
    ("and_", "and_"),
    ("or_", "or_"),
    ("xor", "xor"),
    ("lshift", "shl"),
    ("rshift", "lshr"),
]:
    _register_binary(getattr(operator, _name), _arithmetic(_method))
    _register_binary(getattr(operator, "i" + _name.rstrip("_")), _arithmetic(_method))

for _name, _symbol in [("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="), ("eq", "==")]:
    _register_binary(getattr(operator, _name), _comparison(_symbol))

_register_unary(operator.invert, lambda builder, x: builder.not_(x))
_register_unary(operator.neg, lambda builder, x: builder.neg(x))


def _pointer(
    context: Any, builder: Any, array_type: Any, array: Any, start: Any, lanes: Lanes
) -> Any:
    data = context.make_array(array_type)(context, builder, array).data
    element = builder.gep(data, [start])
    return builder.bitcast(element, _vector_type(lanes).as_pointer())


def _is_contiguous_integer_array(array: Any) -> bool:
    return (
        isinstance(array, types.Array)
        and array.ndim == 1
        and array.layout == "C"
        and isinstance(array.dtype, types.Integer)
    )


@intrinsic
def _load(typingctx: Any, array: Any, start: Any) -> Any:
    if not _is_contiguous_integer_array(array):
        return None
    lanes = Lanes(array.dtype, REGISTER_BITS // array.dtype.bitwidth)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, sig.args[0], args[0], args[1], lanes)
        return builder.load(pointer, align=array.dtype.bitwidth // 8)

    return lanes(array, start), codegen


@intrinsic
def _store(typingctx: Any, array: Any, start: Any, value: Any) -> Any:
    if not (_is_contiguous_integer_array(array) and isinstance(value, Lanes)):
        return None
    if value.dtype.bitwidth != array.dtype.bitwidth:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, sig.args[0], args[0], args[1], value)
        builder.store(args[2], pointer, align=array.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(array, start, value), codegen


#: ``load(array, start)``: the 256 bits of a 1-D C-contiguous integer array from ``start`` on,
#: as lanes of the array's type (no bounds check).
load = cast(Callable[[Any, int], Any], _load)

#: ``store(array, start, lanes)``: write the lanes into the array from ``start`` on (no bounds
#: check; the array's items have the lanes' width).
store = cast(Callable[[Any, int, Any], None], _store)


def _integer_type(dtype: Any) -> Any:
    """The numba integer type a dtype argument (``np.uint16`` in a kernel) names, or None."""
    if isinstance(dtype, types.NumberClass) and isinstance(dtype.instance_type, types.Integer):
        return dtype.instance_type
    return None


@intrinsic
def _view(typingctx: Any, value: Any, dtype: Any) -> Any:
    target = _integer_type(dtype)
    if not isinstance(value, Lanes) or target is None or value.bits % target.bitwidth:
        return None
    lanes = Lanes(target, value.bits // target.bitwidth)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.bitcast(args[0], _vector_type(lanes))

    return lanes(value, dtype), codegen


#: ``view(lanes, np.uint16)``: the same bits read as lanes of another integer type.
view = cast(Callable[[Any, Any], Any], _view)


@intrinsic
def _broadcast(typingctx: Any, value: Any, like: Any) -> Any:
    if not (isinstance(value, types.Integer) and isinstance(like, Lanes)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _as_vector(context, builder, sig.args[0], args[0], like)

    return like(value, like), codegen


#: ``broadcast(value, like)``: ``value`` in every lane of a vector of the type of ``like``.
broadcast = cast(Callable[[int, Any], Any], _broadcast)


@intrinsic
def _splat_each(typingctx: Any, values: Any, like: Any) -> Any:
    if not (
        isinstance(values, types.UniTuple)
        and isinstance(values.dtype, types.Integer)
        and isinstance(like, Lanes)
    ):
        return None
    result = types.UniTuple(like, values.count)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        items = cgutils.unpack_tuple(builder, args[0])
        vectors = [_as_vector(context, builder, values.dtype, item, like) for item in items]
        return context.make_tuple(builder, result, vectors)

    return result(values, like), codegen


#: ``splat_each(values, like)``: a tuple of vectors shaped like ``like``, one per item of the
#: tuple ``values``, each holding its item in every lane.
splat_each = cast(Callable[[Any, Any], Any], _splat_each)

#: ``with_item(vectors, k, value)``: the tuple ``vectors`` with item ``k`` replaced (``k`` is
#: not checked: it must be below the tuple's length). In a loop over ``range(len(vectors))``,
#: which the compiler unrolls, the vectors stay in registers.
with_item = cast(Callable[[Any, int, Any], Any], tuple_setitem)


@intrinsic
def _zip_lanes(typingctx: Any, a: Any, b: Any) -> Any:
    if not (isinstance(a, Lanes) and a == b):
        return None
    pair = types.UniTuple(a, 2)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        half = a.count // 2
        low = [lane // 2 + (a.count if lane % 2 else 0) for lane in range(a.count)]
        high = [index + half for index in low]
        return context.make_tuple(
            builder,
            pair,
            [
                builder.shuffle_vector(args[0], args[1], _indices(low)),
                builder.shuffle_vector(args[0], args[1], _indices(high)),
            ],
        )

    return pair(a, b), codegen


#: ``zip_lanes(a, b)``: ``(a0 b0 a1 b1 …, … a(n−1) b(n−1))``, the lanes of two vectors
#: interleaved, as two vectors of the same type.
zip_lanes = cast(Callable[[Any, Any], tuple[Any, Any]], _zip_lanes)


@intrinsic
def _halves(typingctx: Any, value: Any) -> Any:
    if not (isinstance(value, Lanes) and value.count % 2 == 0):
        return None
    half = Lanes(value.dtype, value.count // 2)
    pair = types.UniTuple(half, 2)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        n = half.count
        return context.make_tuple(
            builder,
            pair,
            [
                builder.shuffle_vector(args[0], args[0], _indices(list(range(n)))),
                builder.shuffle_vector(args[0], args[0], _indices(list(range(n, 2 * n)))),
            ],
        )

    return pair(value), codegen


#: ``halves(lanes)``: its low and high halves, as two vectors.
halves = cast(Callable[[Any], tuple[Any, Any]], _halves)


@intrinsic
def _mul_high(typingctx: Any, a: Any, b: Any) -> Any:
    lanes = _operands(a, b)
    if lanes is None or lanes.dtype.signed:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        x = _as_vector(context, builder, sig.args[0], args[0], lanes)
        y = _as_vector(context, builder, sig.args[1], args[1], lanes)
        bits = lanes.dtype.bitwidth
        wide = ir.VectorType(ir.IntType(2 * bits), lanes.count)
        product = builder.mul(builder.zext(x, wide), builder.zext(y, wide))
        high = builder.lshr(product, ir.Constant(wide, [bits] * lanes.count))
        return builder.trunc(high, x.type)

    return lanes(a, b), codegen


#: ``mul_high(a, b)``: the high half of each lane's full product (unsigned lanes).
mul_high = cast(Callable[[Any, Any], Any], _mul_high)


@intrinsic
def _any_lane(typingctx: Any, value: Any) -> Any:
    if not isinstance(value, Lanes):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector = args[0]
        nonzero = builder.icmp_unsigned("!=", vector, ir.Constant(vector.type, None))
        flags = builder.bitcast(nonzero, ir.IntType(value.count))
        return builder.icmp_unsigned("!=", flags, ir.Constant(flags.type, 0))

    return types.boolean(value), codegen


#: ``any_lane(lanes)``: whether some lane is not zero.
any_lane = cast(Callable[[Any], bool], _any_lane)


@intrinsic
def _lane_popcount(typingctx: Any, value: Any) -> Any:
    if not isinstance(value, Lanes):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector = _vector_type(value)
        name = f"llvm.ctpop.v{value.count}i{value.dtype.bitwidth}"
        ctpop = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vector, [vector]), name
        )
        return builder.call(ctpop, [args[0]])

    return value(value), codegen


#: ``lane_popcount(lanes)``: the number of set bits of each lane.
lane_popcount = cast(Callable[[Any], Any], _lane_popcount)


@intrinsic
def _lane_max(typingctx: Any, a: Any, b: Any) -> Any:
    if not (isinstance(a, Lanes) and a == b):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        icmp = builder.icmp_signed if a.dtype.signed else builder.icmp_unsigned
        return builder.select(icmp(">", args[0], args[1]), args[0], args[1])

    return a(a, b), codegen


#: ``lane_max(a, b)``: the larger of the two in each lane.
lane_max = cast(Callable[[Any, Any], Any], _lane_max)


@intrinsic
def _narrow(typingctx: Any, value: Any, dtype: Any) -> Any:
    target = _integer_type(dtype)
    if not isinstance(value, Lanes) or target is None:
        return None
    if target.bitwidth >= value.dtype.bitwidth:
        return None
    lanes = Lanes(target, value.count)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.trunc(args[0], _vector_type(lanes))

    return lanes(value, dtype), codegen


#: ``narrow(lanes, np.uint8)``: each lane cut to a narrower integer type (its low bits).
narrow = cast(Callable[[Any, Any], Any], _narrow)
