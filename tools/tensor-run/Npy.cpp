//===- Npy.cpp - NumPy .npy files for tensor-run ----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for 2.x/3.x),
// then a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
// padded with spaces and a newline, then the raw elements.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir::sift;
using jit::DType;
using jit::Tensor;
using llvm::StringRef;
using llvm::Twine;

static llvm::Error fail(StringRef name, const Twine &message) {
  return jit::makeError(jit::ErrorCode::InvalidArgument,
                        "'" + name + "': " + message);
}

StringRef npy::descrOf(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::U8:
    return "|u1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  }
  return "?";
}

/// The value after `'key':` in the header dict, or an empty string.
static StringRef valueOf(StringRef header, StringRef key) {
  for (const char *quote : {"'", "\""}) {
    std::string pattern = (Twine(quote) + key + quote).str();
    size_t pos = header.find(pattern);
    if (pos == StringRef::npos)
      continue;
    StringRef rest = header.drop_front(pos + pattern.size()).ltrim();
    if (!rest.consume_front(":"))
      return "";
    return rest.ltrim();
  }
  return "";
}

llvm::Expected<Tensor> npy::parse(StringRef bytes, StringRef name) {
  if (!bytes.starts_with("\x93NUMPY"))
    return fail(name, "not a .npy file (bad magic)");
  if (bytes.size() < 10)
    return fail(name, "truncated .npy header");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail(name, "truncated .npy header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return fail(name, "unsupported .npy version " + Twine(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail(name, "truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLen);

  // 'descr': '<f4'
  StringRef descr = valueOf(header, "descr");
  if (descr.empty() || (descr[0] != '\'' && descr[0] != '"'))
    return fail(name, "no 'descr' string in the .npy header");
  char quote = descr[0];
  descr = descr.drop_front();
  descr = descr.take_until([&](char c) { return c == quote; });
  // A byte-sized type may use any byte-order character.
  std::string canonical = descr.str();
  if (canonical.size() == 3 && canonical[2] == '1' &&
      (canonical[0] == '<' || canonical[0] == '=' || canonical[0] == '>'))
    canonical[0] = '|';
  if (canonical.size() == 3 && canonical[0] == '=')
    canonical[0] = '<'; // native order on the little-endian hosts we support
  std::optional<DType> dtype =
      llvm::StringSwitch<std::optional<DType>>(canonical)
          .Case("|b1", DType::Bool)
          .Case("|i1", DType::I8)
          .Case("|u1", DType::U8)
          .Case("<i2", DType::I16)
          .Case("<i4", DType::I32)
          .Case("<i8", DType::I64)
          .Case("<f4", DType::F32)
          .Case("<f8", DType::F64)
          .Default(std::nullopt);
  if (!dtype) {
    if (!descr.empty() && descr[0] == '>')
      return fail(name, "big-endian dtype '" + descr + "' is not supported");
    return fail(name, "unsupported dtype '" + descr +
                          "' (supported: <f4 <f8 <i8 <i4 <i2 |i1 |u1 |b1)");
  }

  // 'fortran_order': False
  StringRef order = valueOf(header, "fortran_order");
  bool fortran;
  if (order.starts_with("False"))
    fortran = false;
  else if (order.starts_with("True"))
    fortran = true;
  else
    return fail(name, "no 'fortran_order' in the .npy header");

  // 'shape': (3, 4)
  StringRef shapeText = valueOf(header, "shape");
  if (!shapeText.consume_front("("))
    return fail(name, "no 'shape' tuple in the .npy header");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  llvm::SmallVector<int64_t> shape;
  while (!(shapeText = shapeText.trim()).empty()) {
    StringRef item;
    std::tie(item, shapeText) = shapeText.split(',');
    item = item.trim();
    if (item.empty())
      continue;
    int64_t extent;
    if (item.getAsInteger(10, extent) || extent < 0)
      return fail(name, "bad extent '" + item + "' in the .npy shape");
    shape.push_back(extent);
  }

  llvm::Expected<jit::ShapeSize> size =
      jit::checkShape(shape, *dtype, "'" + name + "'");
  if (!size)
    return size.takeError();
  size_t dataStart = headerStart + headerLen;
  uint64_t available = bytes.size() - dataStart;
  if (available < static_cast<uint64_t>(size->numBytes))
    return fail(name, "truncated data: " + Twine(size->numElements) +
                          " elements of " + descr + " need " +
                          Twine(size->numBytes) + " bytes, the file has " +
                          Twine(available));
  const char *data = bytes.data() + dataStart;
  // Booleans are normalized on the copy (any non-zero byte is true).
  if (!fortran)
    return Tensor::copyOf(jit::TensorView(data, *dtype, shape));
  // Column-major: strides grow from the first dimension (checkShape bounds
  // their products).
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t i = 1; i < shape.size(); ++i)
    strides[i] = strides[i - 1] * std::max<int64_t>(shape[i - 1], 1);
  return Tensor::copyOf(jit::TensorView(data, *dtype, shape, strides));
}

llvm::Expected<Tensor> npy::readFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return jit::makeError(jit::ErrorCode::NotFound,
                          "cannot open '" + path +
                              "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

llvm::Error npy::writeFile(StringRef path, const Tensor &tensor) {
  std::string header = "{'descr': '" + descrOf(tensor.dtype()).str() +
                       "', 'fortran_order': False, 'shape': (";
  // Python tuples: "()", "(3,)", "(3, 4)".
  for (auto [i, d] : llvm::enumerate(tensor.shape()))
    header += (i ? ", " : "") + std::to_string(d);
  if (tensor.rank() == 1)
    header += ",";
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return jit::makeError(jit::ErrorCode::NotFound,
                          "cannot write '" + path + "': " + ec.message());
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>(header.size() >> 8);
  os << header;
  os.write(static_cast<const char *>(tensor.data()), tensor.sizeInBytes());
  os.close();
  if (os.has_error())
    return jit::makeError(jit::ErrorCode::NotFound,
                          "cannot write '" + path +
                              "': " + os.error().message());
  return llvm::Error::success();
}
