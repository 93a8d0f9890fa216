//===- DTypes.cpp - element types and buffer addressing ------------------===//

#include "BFloat16.h"
#include "Internal.h"

#include <algorithm>
#include <cstring>
#include <vector>
#include <sstream>

using namespace fuser::runtime;

size_t fuser::runtime::getElementSize(FuserDType dtype) {
  switch (dtype) {
  case FUSER_F64:
  case FUSER_I64:
    return 8;
  case FUSER_F32:
  case FUSER_I32:
    return 4;
  case FUSER_F16:
  case FUSER_BF16:
    return 2;
  case FUSER_I8:
  case FUSER_I1:
    return 1;
  }
  return 0;
}

int64_t fuser::runtime::getNumElements(const FuserBuffer &buffer) {
  int64_t count = 1;
  for (int64_t dim = 0; dim < buffer.rank; ++dim)
    count *= buffer.sizes[dim];
  return count;
}

char *fuser::runtime::getElementAddress(const FuserBuffer &buffer,
                                        int64_t index) {
  int64_t position = buffer.offset;
  for (int64_t dim = buffer.rank - 1; dim >= 0; --dim) {
    position += (index % buffer.sizes[dim]) * buffer.strides[dim];
    index /= buffer.sizes[dim];
  }
  return static_cast<char *>(buffer.aligned) +
         position * static_cast<int64_t>(getElementSize(buffer.dtype));
}

bool fuser::runtime::isRowMajor(const FuserBuffer &buffer) {
  int64_t expected = 1;
  for (int64_t dim = buffer.rank - 1; dim >= 0; --dim) {
    if (buffer.sizes[dim] == 1)
      continue;
    if (buffer.strides[dim] != expected)
      return false;
    expected *= buffer.sizes[dim];
  }
  return true;
}

bool fuser::runtime::isDense(const FuserBuffer &buffer) {
  // Dims in memory order (largest stride first); unit dims take no room.
  std::vector<int64_t> dims;
  for (int64_t dim = 0; dim < buffer.rank; ++dim)
    if (buffer.sizes[dim] != 1)
      dims.push_back(dim);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) {
    return buffer.strides[a] > buffer.strides[b];
  });
  int64_t expected = 1;
  for (auto dim = dims.rbegin(); dim != dims.rend(); ++dim) {
    if (buffer.strides[*dim] != expected)
      return false;
    expected *= buffer.sizes[*dim];
  }
  return true;
}

std::string fuser::runtime::describe(const FuserBuffer &buffer) {
  std::ostringstream text;
  text << fuser_dtype_name(buffer.dtype) << "[";
  for (int64_t dim = 0; dim < buffer.rank; ++dim)
    text << (dim ? ", " : "") << buffer.sizes[dim];
  text << "]";
  return text.str();
}

/// f16 and bf16 are stored as their 16 bits; arithmetic goes through f32.
static float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1f,
           mantissa = bits & 0x3ffu, result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;
  } else {
    // Subnormal: normalize.
    exponent = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    result = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

static uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 0x1f)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent, which rounds up correctly
  return static_cast<uint16_t>(half);
}

template <typename T> static T load(const char *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

template <typename T> static void store(char *address, T value) {
  std::memcpy(address, &value, sizeof(T));
}

double fuser::runtime::loadElement(const char *address, FuserDType dtype) {
  switch (dtype) {
  case FUSER_F32:
    return load<float>(address);
  case FUSER_F16:
    return halfToFloat(load<uint16_t>(address));
  case FUSER_BF16:
    return bfloatToFloat(load<uint16_t>(address));
  case FUSER_F64:
    return load<double>(address);
  case FUSER_I64:
    return static_cast<double>(load<int64_t>(address));
  case FUSER_I32:
    return load<int32_t>(address);
  case FUSER_I8:
    return load<int8_t>(address);
  case FUSER_I1:
    return load<uint8_t>(address) != 0;
  }
  return 0;
}

void fuser::runtime::storeElement(char *address, FuserDType dtype,
                                  double value) {
  switch (dtype) {
  case FUSER_F32:
    return store(address, static_cast<float>(value));
  case FUSER_F16:
    return store(address, floatToHalf(static_cast<float>(value)));
  case FUSER_BF16:
    return store(address, floatToBfloat(static_cast<float>(value)));
  case FUSER_F64:
    return store(address, value);
  case FUSER_I64:
    return store(address, static_cast<int64_t>(value));
  case FUSER_I32:
    return store(address, static_cast<int32_t>(value));
  case FUSER_I8:
    return store(address, static_cast<int8_t>(value));
  case FUSER_I1:
    return store(address, static_cast<uint8_t>(value != 0));
  }
}

extern "C" {

double fuser_load_element(const void *address, FuserDType dtype) {
  return loadElement(static_cast<const char *>(address), dtype);
}

void fuser_store_element(void *address, FuserDType dtype, double value) {
  storeElement(static_cast<char *>(address), dtype, value);
}

int64_t fuser_element_size(FuserDType dtype) {
  return static_cast<int64_t>(getElementSize(dtype));
}

} // extern "C"
