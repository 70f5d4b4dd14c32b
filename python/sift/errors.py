"""The exceptions of the sift package.

Every failure of the engine is a `sift.Error`; its subclass says what went
wrong (the engine's ErrorCode), its message is the engine's, and where the
message points into MLIR source (``file:line:col: error: ...``) the first
such place is kept in `location`.
"""

import re

__all__ = [
    "Error", "InvalidArgumentError", "NotFoundError", "ParseError",
    "CompileError", "UnsupportedError", "ExecutionError", "OutOfMemoryError",
    "SourceLocation",
]


class SourceLocation(tuple):
    """(file, line, column) of a diagnostic in MLIR source."""

    __slots__ = ()

    def __new__(cls, file, line, column):
        return super().__new__(cls, (file, line, column))

    file = property(lambda self: self[0])
    line = property(lambda self: self[1])
    column = property(lambda self: self[2])

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}"


_LOCATION = re.compile(r"^(.+?):(\d+):(\d+): (?:error|warning|note|remark)",
                       re.MULTILINE)
_CALL = re.compile(r"^function '([^']*)'(?:: argument (\d+))?")


class Error(Exception):
    """A failure of sift's engine.

    Attributes: `code` (the engine's ErrorCode, an int), `message` (its
    text), `location` (the first SourceLocation the message names, or None),
    `function` and `argument` (the function a call failed in and the
    argument position at fault, when the message names them; None
    otherwise) and `argument_name` (that argument's name, when known).
    """

    code = None

    def __init__(self, message, argument_name=None):
        super().__init__(message)
        self.message = message
        match = _LOCATION.search(message)
        self.location = (SourceLocation(match[1], int(match[2]), int(match[3]))
                         if match else None)
        match = _CALL.match(message)
        self.function = match[1] if match else None
        self.argument = int(match[2]) if match and match[2] else None
        self.argument_name = argument_name

    def __str__(self):
        if self.argument_name:
            return f"{self.message} [argument {self.argument} is " \
                   f"'{self.argument_name}']"
        return self.message


class InvalidArgumentError(Error, ValueError):
    """A call's arguments (or an option) do not match what is expected."""
    code = 1


class NotFoundError(Error, LookupError):
    """No such function or file."""
    code = 2


class ParseError(Error):
    """The MLIR source does not parse or verify."""
    code = 3


class CompileError(Error):
    """A transform, the pipeline or the JIT failed."""
    code = 4


class UnsupportedError(Error):
    """A target, type or option this build cannot handle."""
    code = 5


class ExecutionError(Error):
    """Compiled code reported an error while it ran."""
    code = 6


class OutOfMemoryError(Error, MemoryError):
    """A buffer (on the host or in compiled code) could not be allocated."""
    code = 7


_BY_CODE = {cls.code: cls for cls in (
    InvalidArgumentError, NotFoundError, ParseError, CompileError,
    UnsupportedError, ExecutionError, OutOfMemoryError)}


def _from_engine(code, message):
    """The exception for an engine error (called by the extension)."""
    return _BY_CODE.get(code, Error)(message)
