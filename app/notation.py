"""Dice notation (docs/rules.md#dice-notation), evaluated by the d20 library with our dice.

d20 parses and evaluates the notation (`NdS`, arithmetic, keep/drop `kh kl ph pl`, rerolls
`rr ro`, exploding `e ra`, `mi ma`, `[annotations]`), but it rolls with the global `random`
module. Here every die it rolls — first rolls, rerolls, explosions — takes its value from a
`draw(sides) -> int` function instead, so the dice come from the request's `Dice` source
(supplied, seeded or CSPRNG) and are logged like every other die. The hook is by subclassing,
never by patching module globals: `_DrawRoller` builds `_DrawnDice` whose `_DrawnDie` take
their values from the `draw` held on the roll's own `_DrawContext`, so concurrent rolls never
share state.

Limits (docs/rules.md#dice-notation) are checked before any die is rolled: at most 1000 characters,
1000 dice
and 100 000 sides, counted on the parsed expression (every `NdS`, nested ones included).
Rerolls and explosions count towards the 1000 dice while rolling. Two guards of our own keep
a hostile expression cheap, and are limits too:
- *Parentheses nest at most 50 deep* (`MAX_PARENTHESES`, counted on the text before parsing;
  brackets inside an `[annotation]` are text). Evaluation and the breakdown recurse once per
  level of real nesting, so this guard keeps them within Python's recursion limit. It is the
  only nesting limit: a flat chain of operations (`1d4+1d4+…`, 250 terms in 1000 characters)
  or of signs (`--…-1`) is walked iteratively (`_DrawRoller`, `_ChainBinOp`, `_ChainUnOp`,
  `_Breakdown`), however long, so every expression within the 1000 characters, 1000 dice and
  100 000 sides rolls.
- Keep/reroll/explode passes may look at 100 000 dice in all (`MAX_WORK`; d20 re-selects the
  whole set on every pass, so many selectors on many dice would otherwise take minutes).

Rulings where the library and the rules (docs/rules.md#dice-notation) meet:
- `/` rounds down at every step (docs/rules.md#rounding); d20 alone divides
  exactly and truncates the final total. A total with a fraction (from decimal literals such
  as `1.5`) is rounded down too.
- `d%` is d20's tens die, 0, 10, …, 90: one d10 is drawn and its value `v` counts as
  `10 * (v - 1)`. The logged value (and a supplied value) is the d10's 1..10.
- A total must lie within ±(2**53 - 1), the integers every JSON reader holds exactly.
- Rerolls (`rr`, `ro`) take the next values in the dice's own order; d20 walks a Python set,
  whose order varies between runs, and the same seed must give the same breakdown.

Any failure — unreadable notation, a limit, a division by zero, a rolled-dice runaway such
as `1d1e1` — is a `NotationError` (HTTP 422), never a server error.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any, ClassVar, Final

import d20
import lark

from app.rules.dice import Dice, NotationResult, Rng, SeededRng
from app.rules.errors import Loc, RulesError
from app.rules.messages import N_, Message, m
from app.rules.violations import MAX_NOTATION_CHARS

#: docs/rules.md#dice-notation.
MAX_EXPRESSION_LENGTH: Final = MAX_NOTATION_CHARS
MAX_DICE: Final = 1000
MAX_SIDES: Final = 100_000
#: Guards that keep evaluation cheap and within Python's recursion limit (module docstring).
MAX_PARENTHESES: Final = 50
MAX_WORK: Final = 100_000
#: The largest total a JSON reader holds exactly (RFC 7493, I-JSON).
MAX_TOTAL: Final = 2**53 - 1
#: `d%` draws one d10 (module docstring).
PERCENTILE_SIDES: Final = 10

Draw = Callable[[int], int]


class NotationError(RulesError):
    """Dice notation that cannot be rolled: unreadable, past a limit (docs/rules.md#dice-notation),
    or failing."""


# --- d20, drawing its dice from us -------------------------------------------------------------


class _DrawContext(d20.RollContext):  # type: ignore[misc]
    """One evaluation's state: the draw function, the dice drawn and the work done."""

    def __init__(self, draw: Draw) -> None:
        self._draw = draw
        self.work = 0
        self.values: list[int] = []
        self.sides: list[int] = []
        super().__init__(max_rolls=MAX_DICE)

    def reset(self) -> None:
        super().reset()
        self.work = 0

    def count_roll(self, n: int = 1) -> None:
        self.rolls += n
        if self.rolls > self.max_rolls:
            raise NotationError(
                m(
                    "the expression rolls more than {count} dice (rerolls and explosions count)",
                    count=MAX_DICE,
                )
            )

    def charge(self, dice_looked_at: int) -> None:
        """Count work done by keep/reroll/explode passes (module docstring)."""
        self.work += dice_looked_at
        if self.work > MAX_WORK:
            raise NotationError(
                m(
                    "the expression takes too much work to roll: its keep, reroll, explode and "
                    "minimum/maximum passes look at more than {count} dice in all",
                    count=MAX_WORK,
                )
            )

    def face(self, size: int | str) -> int:
        """The face of one die of `size` sides (`"%"`: d20's tens die), from `draw`."""
        if isinstance(size, str):
            return (self._take(PERCENTILE_SIDES) - 1) * 10
        return self._take(size)

    def _take(self, sides: int) -> int:
        value = self._draw(sides)
        self.values.append(value)
        self.sides.append(sides)
        return value


def _context_of(node: Any) -> _DrawContext:
    context = node._context
    if not isinstance(context, _DrawContext):
        raise TypeError("a drawn die needs a _DrawContext")
    return context


class _DrawnDie(d20.Die):  # type: ignore[misc]
    """A die whose every value, first roll or reroll, comes from the context's `draw`."""

    __slots__ = ()

    def _add_roll(self) -> None:
        if self.size != "%" and self.size < 1:
            raise d20.RollValueError("Cannot roll a 0-sided die.")
        context = _context_of(self)
        context.count_roll()
        self.values.append(d20.Literal(context.face(self.size)))


class _DrawnDice(d20.Dice):  # type: ignore[misc]
    """`NdS` made of `_DrawnDie`, including the dice that explosions add."""

    __slots__ = ()

    @classmethod
    def new(cls, num: int, size: int | str, context: _DrawContext | None = None) -> _DrawnDice:
        dice = [_DrawnDie.new(size, context=context) for _ in range(num)]
        return cls(num, size, dice, context=context)

    def roll_another(self) -> None:
        self.values.append(_DrawnDie.new(self.size, context=self._context))


class _ChainBinOp(d20.BinOp):  # type: ignore[misc]
    """Arithmetic where `/` rounds down (docs/rules.md#dice-and-checks), totalled without recursing
    down a chain.

    d20 totals `a + b + c` as `(a + b) + c`, one recursion per operation; this walks the chain
    of left operands in a loop instead (module docstring: only parentheses nest).
    """

    __slots__ = ()

    BINARY_OPS: ClassVar[dict[str, Callable[[Any, Any], Any]]] = {
        **d20.BinOp.BINARY_OPS,
        "/": operator.floordiv,
    }

    @property
    def number(self) -> Any:
        chain: list[_ChainBinOp] = []
        node: Any = self
        while isinstance(node, _ChainBinOp):
            chain.append(node)
            node = node.left
        value = node.total
        for operation in reversed(chain):
            try:
                value = operation.BINARY_OPS[operation.op](value, operation.right.total)
            except ZeroDivisionError:
                raise d20.RollValueError("Cannot divide by zero.") from None
            if operation is not self and not operation.kept:
                value = 0
        return value


class _ChainUnOp(d20.UnOp):  # type: ignore[misc]
    """A sign (`-`, `+`), totalled without recursing down a run of signs (`--…-1`)."""

    __slots__ = ()

    @property
    def number(self) -> Any:
        chain: list[_ChainUnOp] = []
        node: Any = self
        while isinstance(node, _ChainUnOp):
            chain.append(node)
            node = node.value
        value = node.total
        for operation in reversed(chain):
            value = operation.UNARY_OPS[operation.op](value)
            if operation is not self and not operation.kept:
                value = 0
        return value


class _Selector(d20.SetSelector):  # type: ignore[misc]
    """A selector (`h3`, `<2`, `6`) that charges the dice it looks at to the context."""

    __slots__ = ("_context",)

    def __init__(self, cat: str | None, num: int, context: _DrawContext) -> None:
        super().__init__(cat, num)
        self._context = context

    def select(self, target: Any, max_targets: int | None = None) -> Any:
        self._context.charge(len(target.set))
        return super().select(target, max_targets)


class _Operator(d20.SetOperator):  # type: ignore[misc]
    """d20's set operator: keep selects once (not once per die); rerolls go in dice order."""

    __slots__ = ("_context",)

    def __init__(self, op: str, sels: list[_Selector], context: _DrawContext) -> None:
        super().__init__(op, sels)
        self._context = context

    @classmethod
    def from_node(cls, node: Any, context: _DrawContext) -> _Operator:
        selectors = [_Selector(sel.cat, sel.num, context) for sel in node.sels]
        return cls(node.op, selectors, context)

    def keep(self, target: Any) -> None:
        # d20 re-selects for every die. Dropping a die that is not selected never changes what
        # the selectors pick (highest/lowest n are stable under removing others), so selecting
        # once gives the same dice.
        kept = self.select(target)
        for value in target.keptset:
            if value not in kept:
                value.drop()

    def reroll(self, target: Any) -> None:
        to_reroll = self._in_order(target)
        while to_reroll:
            for die in to_reroll:
                die.reroll()
            to_reroll = self._in_order(target)

    def reroll_once(self, target: Any) -> None:
        for die in self._in_order(target):
            die.reroll()

    def _in_order(self, target: Any) -> list[Any]:
        # d20 rerolls the selected dice in the order of a Python set (by object id), which
        # would hand the drawn values to the dice in an order that varies from run to run;
        # the same seed must give the same breakdown, so reroll in the dice's own order.
        selected = self.select(target)
        return [die for die in target.keptset if die in selected]

    def minimum(self, target: Any) -> None:
        self._context.charge(len(target.set))
        super().minimum(target)

    def maximum(self, target: Any) -> None:
        self._context.charge(len(target.set))
        super().maximum(target)


class _DrawRoller(d20.Roller):  # type: ignore[misc]
    """d20's evaluator building our dice, operators and flooring division."""

    def __init__(self, context: _DrawContext) -> None:
        super().__init__(context)
        self._draw_context = context

    def _eval_dice(self, node: Any) -> Any:
        return _DrawnDice.new(node.num, node.size, context=self._draw_context)

    def _eval_binop(self, node: Any) -> Any:
        # `a + b + c` is `(a + b) + c`: walk the left operands in a loop, then evaluate the
        # terms left to right (the order d20 draws their dice in), one recursion per term only.
        chain: list[Any] = []
        while isinstance(node, d20.diceast.BinOp):
            chain.append(node)
            node = node.left
        result = self._eval(node)
        for operation in reversed(chain):
            result = _ChainBinOp(result, operation.op, self._eval(operation.right))
        return result

    def _eval_unop(self, node: Any) -> Any:
        signs: list[str] = []
        while isinstance(node, d20.diceast.UnOp):
            signs.append(node.op)
            node = node.value
        result = self._eval(node)
        for sign in reversed(signs):
            result = _ChainUnOp(sign, result)
        return result

    def _eval_operatedset(self, node: Any) -> Any:
        target = self._eval(node.value)
        for operation in node.operations:
            set_operator = _Operator.from_node(operation, self._draw_context)
            set_operator.operate(target)
            target.operations.append(set_operator)
        return target


class _Breakdown(d20.MarkdownStringifier):  # type: ignore[misc]
    """d20's plain breakdown with dropped dice struck out: `4d6kh3 (5, 3, 2, ~~1~~) = 10`."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self._total = total
        # d20 dispatches on the exact class, so our subclasses need their own entries.
        self._nodes: dict[Any, Callable[[Any], str]] = {
            **self._nodes,
            _DrawnDice: self._str_dice,
            _DrawnDie: self._str_die,
            _ChainBinOp: self._str_binop,
            _ChainUnOp: self._str_unop,
        }

    def _str_expression(self, node: Any) -> str:
        return f"{self._stringify(node.roll)} = {self._total}"

    def _str_binop(self, node: Any) -> str:
        # d20's `f"{left} {op} {right}"`, looping down the left operands (module docstring).
        chain: list[Any] = [node]
        left = node.left
        while isinstance(left, _ChainBinOp) and left.kept and not left.annotation:
            chain.append(left)
            left = left.left
        parts = [self._stringify(left)]
        for operation in reversed(chain):
            parts += (" ", operation.op, " ", self._stringify(operation.right))
        return "".join(parts)

    def _str_unop(self, node: Any) -> str:
        signs: list[str] = [node.op]
        value = node.value
        while isinstance(value, _ChainUnOp) and value.kept and not value.annotation:
            signs.append(value.op)
            value = value.value
        inside: str = self._stringify(value)
        return "".join(signs) + inside

    def _str_die(self, node: Any) -> str:
        return ", ".join(self._stringify(value) for value in node.values)


# --- checks before rolling ---------------------------------------------------------------------


def _check_text(expr: str) -> None:
    if len(expr) > MAX_EXPRESSION_LENGTH:
        raise NotationError(
            m(
                "the expression is {length} characters long; at most {most}",
                length=len(expr),
                most=MAX_EXPRESSION_LENGTH,
            )
        )
    depth = 0
    in_annotation = False
    for char in expr:
        if in_annotation:
            in_annotation = char != "]"
        elif char == "[":
            in_annotation = True
        elif char == "(":
            depth += 1
            if depth > MAX_PARENTHESES:
                raise NotationError(
                    m("parentheses nest more than {count} deep", count=MAX_PARENTHESES)
                )
        elif char == ")":
            depth -= 1


@functools.lru_cache(maxsize=1024)
def _parse(expr: str) -> Any:
    """The d20 syntax tree of `expr`, checked against every static limit.

    Cached like d20's own parser (bots repeat the same few expressions); evaluation only reads
    the tree, so one tree serves concurrent rolls.
    """
    _check_text(expr)
    text = expr.strip()
    offset = len(expr) - len(expr.lstrip())
    try:
        tree = d20.diceast.parser.parse(text, start="expr")
    except lark.exceptions.UnexpectedToken as exc:
        token: Any = exc.token  # type: ignore[attr-defined]  # lark's stubs omit it
        if token.type == "$END":
            raise NotationError(
                N_("not valid dice notation: the expression ends too early")
            ) from None
        raise NotationError(_unexpected(str(token), exc.pos_in_stream, offset)) from None
    except lark.exceptions.UnexpectedCharacters as exc:
        position = exc.pos_in_stream
        found = text[position : position + 1] or "end of text"
        raise NotationError(_unexpected(found, position, offset)) from None
    except (lark.exceptions.LarkError, RecursionError, ValueError):
        raise NotationError(N_("not valid dice notation")) from None
    _check_tree(tree)
    return tree


def _unexpected(found: str, position: int | None, offset: int) -> Message:
    if position is None:
        return m("not valid dice notation: unexpected {found}", found=repr(found))
    return m(
        "not valid dice notation: unexpected {found} at character {position}",
        found=repr(found),
        position=position + offset + 1,
    )


def _check_tree(tree: Any) -> None:
    """Dice and sides limits, counted over every node (iteratively: a chain makes a deep tree).

    Nesting is limited on the text (`_check_text`: parentheses), not here: a long chain of
    operations is deep as a tree but flat to evaluate (module docstring).
    """
    dice = 0
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, d20.diceast.Dice):
            sides = PERCENTILE_SIDES if node.size == "%" else node.size
            if sides < 1:
                raise NotationError(
                    m("{dice}: a die has at least 1 side", dice=f"{node.num}d{node.size}")
                )
            if sides > MAX_SIDES:
                raise NotationError(
                    m(
                        "{dice}: a die has at most {most} sides",
                        dice=f"{node.num}d{node.size}",
                        most=MAX_SIDES,
                    )
                )
            dice += node.num
            if dice > MAX_DICE:
                raise NotationError(m("the expression has more than {count} dice", count=MAX_DICE))
        stack.extend(node.children)


# --- evaluation --------------------------------------------------------------------------------


def _integer_total(value: object) -> int:
    """The total as an integer: fractions round down (docs/rules.md#dice-and-checks), within
    ±MAX_TOTAL."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotationError(N_("the expression's total is not a finite number"))
        value = math.floor(value)
    if not isinstance(value, int):
        raise NotationError(N_("the expression's total is not a number"))
    if abs(value) > MAX_TOTAL:
        raise NotationError(m("the expression's total is beyond ±{most}", most=MAX_TOTAL))
    return value


def _evaluate(tree: Any, draw: Draw) -> NotationResult:
    context = _DrawContext(draw)
    try:
        rolled = _DrawRoller(context).roll(tree).expr
        total = _integer_total(rolled.total)
        breakdown = _Breakdown(total).stringify(rolled)
    except RulesError:
        raise
    except d20.RollError as exc:
        raise NotationError(m("cannot roll the expression: {why}", why=str(exc))) from None
    except ZeroDivisionError:
        raise NotationError(N_("cannot roll the expression: division by zero")) from None
    except (ArithmeticError, ValueError):
        raise NotationError(N_("cannot roll the expression: a number is out of range")) from None
    except RecursionError:
        raise NotationError(N_("the expression nests too deeply")) from None
    return NotationResult(total, breakdown, tuple(context.values), tuple(context.sides))


def roll_notation(expr: str, draw: Draw) -> NotationResult:
    """Roll dice notation (docs/rules.md#dice-notation), every die's value taken from
    `draw(sides)`, in order.

    Raises `NotationError` for unreadable notation, a limit of docs/rules.md#limits (checked before
    any die is
    drawn) or a failure while rolling; a `RulesError` raised by `draw` (e.g. a supplied value
    out of range) passes through unchanged.
    """
    return _evaluate(_parse(expr), draw)


#: The evaluator to inject into `Dice(..., notation=NOTATION_ROLLER)`.
NOTATION_ROLLER: Final = roll_notation


def validate_notation(expr: str, loc: Loc = ()) -> None:
    """Reject dice notation that cannot be rolled (docs/rules.md#dice-notation), e.g. when a
    session is created.

    Checks the text and every limit, then rolls it once with fixed dice to catch what fails
    whatever the dice (`1/0`, `2d6mi>3`, the runaway `1d1e1`). A divisor that depends on the
    dice (`1/(1d2-1)`) is refused too: it could be zero in some round, and a contest whose
    damage cannot be rolled could never finish.
    """
    try:
        tree = _parse(expr)
        _refuse_dice_divisors(tree)
        _evaluate(tree, SeededRng(0, "validate-notation").die)
    except NotationError as exc:
        raise NotationError(exc.said or exc.msg, loc) from None


def _refuse_dice_divisors(tree: Any) -> None:
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, d20.diceast.BinOp) and node.op in ("/", "%") and _has_dice(node.right):
            raise NotationError(
                m(
                    "the divisor after {operator} depends on the dice and could be zero",
                    operator=repr(node.op),
                )
            )
        stack.extend(node.children)


def _has_dice(tree: Any) -> bool:
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, d20.diceast.Dice):
            return True
        stack.extend(node.children)
    return False


#: Set operations that roll more dice, as many as the dice decide (d20's rerolls, explosions).
_DICE_ADDING: Final = frozenset({"rr", "ro", "ra", "e"})


@functools.lru_cache(maxsize=1024)
def notation_dice(expr: str) -> tuple[int, ...] | None:
    """Each die `expr` rolls, as its sides in the order rolled (`d%` a d10), when every roll of
    it rolls the same dice; None when rerolls or explosions let the dice decide how many
    (docs/rules.md#supplied-and-server-dice). Counted by rolling it once with every die a 1."""
    tree = _parse(expr)
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, d20.diceast.OperatedDice) and any(
            operation.op in _DICE_ADDING for operation in node.operations
        ):
            return None
        stack.extend(node.children)
    sides: list[int] = []

    def draw(die: int) -> int:
        sides.append(die)
        return 1

    _evaluate(tree, draw)
    return tuple(sides)


def roll_expression(
    expr: str, rng: Rng, who: str | None = None, purpose: str = "roll"
) -> tuple[NotationResult, Dice]:
    """Roll `expr` with server dice from `rng`; the `Dice` holds its one (who, purpose) entry."""
    dice = Dice(rng, notation=NOTATION_ROLLER)
    return dice.notation(expr, who=who, purpose=purpose), dice


def roll_summary(result: NotationResult) -> str:
    """The one-line summary of a roll: its breakdown, e.g. `4d6kh3 (5, 3, 2, ~~1~~) = 10`."""
    return result.breakdown
