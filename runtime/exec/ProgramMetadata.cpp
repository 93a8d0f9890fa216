//===- ProgramMetadata.cpp - the JSON document of a compiled library -----===//
//
// The runtime builds without LLVM (whose JSON reader the compiler uses to
// write the document), so it reads the subset of JSON the document uses:
// objects, arrays, strings without escapes other than \" and \\, integers.
// A library is a file that can be corrupted or written by something else:
// the reader bounds its nesting and every tensor is checked (sizes, mesh,
// axes, divisibility) before the runner computes a shape from it.
//
//===----------------------------------------------------------------------===//

#include "ProgramMetadata.h"

#include "fuser/Runtime/ProgramMetadataSchema.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

using namespace fuser;
namespace schema = fuser::metadata;

namespace {
struct Json {
  enum Kind { Object, Array, String, Number, Boolean, Null } kind = Null;
  std::map<std::string, Json> object;
  std::vector<Json> array;
  std::string string;
  int64_t number = 0;

  /// The field `key`, or null where the object has none.
  const Json *find(const std::string &key) const {
    auto found = object.find(key);
    return kind == Object && found != object.end() ? &found->second : nullptr;
  }
  const Json &at(const std::string &key) const {
    if (const Json *field = find(key))
      return *field;
    throw std::runtime_error("no field \"" + key + "\"");
  }
  const std::vector<Json> &items() const {
    if (kind != Array)
      throw std::runtime_error("an array was expected");
    return array;
  }
  const std::string &text() const {
    if (kind != String)
      throw std::runtime_error("a string was expected");
    return string;
  }
  int64_t integer() const {
    if (kind != Number)
      throw std::runtime_error("an integer was expected");
    return number;
  }
  std::vector<int64_t> integers() const {
    std::vector<int64_t> values;
    for (const Json &item : items())
      values.push_back(item.integer());
    return values;
  }
};

class Reader {
public:
  explicit Reader(const std::string &text) : text(text) {}

  Json readDocument() {
    Json value = read();
    skipSpace();
    if (position != text.size())
      throw std::runtime_error("text after the document");
    return value;
  }

private:
  const std::string &text;
  size_t position = 0;
  /// How deep the value being read is nested; the document's are shallow.
  int depth = 0;
  static constexpr int kMaxDepth = 32;

  void skipSpace() {
    while (position < text.size() && std::isspace(static_cast<unsigned char>(text[position])))
      ++position;
  }
  char peek() {
    skipSpace();
    if (position == text.size())
      throw std::runtime_error("the document ends early");
    return text[position];
  }
  void expect(char c) {
    if (peek() != c)
      throw std::runtime_error(std::string("'") + c + "' expected at offset " +
                               std::to_string(position));
    ++position;
  }
  bool consumeWord(const char *word) {
    size_t length = std::char_traits<char>::length(word);
    if (text.compare(position, length, word) != 0)
      return false;
    position += length;
    return true;
  }

  std::string readString() {
    expect('"');
    std::string value;
    while (position < text.size() && text[position] != '"') {
      if (text[position] == '\\' && position + 1 < text.size())
        ++position;
      value += text[position++];
    }
    expect('"');
    return value;
  }

  Json read() {
    if (++depth > kMaxDepth)
      throw std::runtime_error("values nested more than " +
                               std::to_string(kMaxDepth) + " deep");
    Json value = readValue();
    --depth;
    return value;
  }

  Json readValue() {
    Json value;
    char next = peek();
    if (next == '{') {
      value.kind = Json::Object;
      ++position;
      if (peek() == '}') {
        ++position;
        return value;
      }
      do {
        std::string key = readString();
        expect(':');
        value.object[key] = read();
      } while (peek() == ',' && ++position);
      expect('}');
    } else if (next == '[') {
      value.kind = Json::Array;
      ++position;
      if (peek() == ']') {
        ++position;
        return value;
      }
      do
        value.array.push_back(read());
      while (peek() == ',' && ++position);
      expect(']');
    } else if (next == '"') {
      value.kind = Json::String;
      value.string = readString();
    } else if (next == '-' || std::isdigit(static_cast<unsigned char>(next))) {
      value.kind = Json::Number;
      const char *start = text.data() + position;
      auto [end, problem] =
          std::from_chars(start, text.data() + text.size(), value.number);
      if (problem != std::errc())
        throw std::runtime_error("the number at offset " +
                                 std::to_string(position) +
                                 " is not an integer of 64 bits");
      position += end - start;
    } else if (consumeWord("true")) {
      value.kind = Json::Boolean;
      value.number = 1;
    } else if (consumeWord("false")) {
      value.kind = Json::Boolean;
    } else if (consumeWord("null")) {
      value.kind = Json::Null;
    } else {
      throw std::runtime_error("unexpected '" + std::string(1, next) +
                               "' at offset " + std::to_string(position));
    }
    return value;
  }
};

FuserDType parseDType(const std::string &name) {
  // The codes run from FUSER_F32 to FUSER_I1.
  for (int code = FUSER_F32; code <= FUSER_I1; ++code)
    if (name == fuser_dtype_name(static_cast<FuserDType>(code)))
      return static_cast<FuserDType>(code);
  throw std::runtime_error("element type " + name + " is not one the runtime "
                                                     "holds");
}

/// Why `tensor` cannot be run as the metadata describes it, or empty: a
/// negative size, more bytes than a buffer can address, a mesh that is not
/// one, a dim split over an axis the mesh lacks or an axis splitting two
/// dims, a dim its axes do not divide.
std::string checkTensor(const TensorSpec &tensor) {
  int64_t bytes = fuser_element_size(tensor.code);
  for (size_t dim = 0; dim < tensor.shape.size(); ++dim) {
    int64_t size = tensor.shape[dim];
    if (size < 0)
      return "dim " + std::to_string(dim) + " has size " + std::to_string(size);
    if (size > 0 && bytes > std::numeric_limits<int64_t>::max() / size)
      return "its shape holds more bytes than a buffer can address";
    bytes *= size;
  }
  if (tensor.mesh.devices.empty())
    return "its mesh lists no device ids";
  std::string mesh = checkMesh(tensor.mesh.shape, tensor.mesh.devices);
  if (!mesh.empty())
    return mesh;
  std::vector<int64_t> splitDim(tensor.mesh.shape.size(), -1);
  for (size_t dim = 0; dim < tensor.dimAxes.size(); ++dim)
    for (int64_t axis : tensor.dimAxes[dim]) {
      if (axis < 0 || axis >= tensor.mesh.rank())
        return "dim " + std::to_string(dim) + " is split over mesh axis " +
               std::to_string(axis) + ", which a mesh of " +
               std::to_string(tensor.mesh.rank()) + " axes lacks";
      if (splitDim[axis] >= 0)
        return "mesh axis " + std::to_string(axis) + " splits dims " +
               std::to_string(splitDim[axis]) + " and " + std::to_string(dim);
      splitDim[axis] = static_cast<int64_t>(dim);
    }
  return checkDivisible(tensor.shape, tensor.dimAxes, tensor.mesh);
}

/// The input or output `json` describes; `label` names it in errors
/// ("program tp_mlp, input #1").
TensorSpec readTensor(const Json &json, bool isInput,
                      const std::string &label) {
  TensorSpec tensor;
  tensor.isInput = isInput;
  namespace field = schema::tensor;
  tensor.dtype = json.at(field::kDType).text();
  tensor.code = parseDType(tensor.dtype);
  tensor.shape = json.at(field::kShape).integers();
  const Json &mesh = json.at(field::kMesh);
  tensor.mesh.shape = mesh.at(field::kMeshShape).integers();
  tensor.mesh.devices = mesh.at(field::kMeshDevices).integers();
  for (const Json &axes : json.at(field::kDimAxes).items())
    tensor.dimAxes.push_back(axes.integers());
  if (tensor.dimAxes.size() != tensor.shape.size())
    throw std::runtime_error(label + ": its dim_axes do not match its shape");
  std::string problem = checkTensor(tensor);
  if (!problem.empty())
    throw std::runtime_error(label + ": " + problem);
  return tensor;
}
} // namespace

int64_t TensorSpec::numElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

bool fuser::parseProgramMetadata(const std::string &text,
                                 ProgramMetadata &metadata,
                                 std::string &error) {
  try {
    namespace field = schema::document;
    namespace calibrationField = schema::calibration;
    namespace programField = schema::program;
    Json document = Reader(text).readDocument();
    if (document.at(field::kFormat).text() != schema::kFormatName)
      throw std::runtime_error(std::string("not a ") + schema::kFormatName +
                               " library");
    int64_t version = document.at(field::kVersion).integer();
    if (version != FUSER_PROGRAM_ABI_VERSION)
      throw std::runtime_error(
          "built for version " + std::to_string(version) +
          " of the runtime's calls, this runtime has version " +
          std::to_string(FUSER_PROGRAM_ABI_VERSION) +
          "; recompile the program with this fuser-compile");
    metadata.target = document.at(field::kTarget).text();
    if (metadata.target != schema::kCpuTarget &&
        metadata.target != schema::kCudaTarget)
      throw std::runtime_error("target '" + metadata.target +
                               "' is neither cpu nor cuda");
    if (const Json *ranksPerNode = document.find(field::kRanksPerNode))
      metadata.ranksPerNode = ranksPerNode->integer();
    if (const Json *calibration = document.find(field::kCalibration)) {
      CalibrationSpec &spec = metadata.calibration.emplace();
      spec.used = calibration->at(calibrationField::kUsed).text();
      if (const Json *gpu = calibration->find(calibrationField::kGpu))
        spec.gpu = gpu->text();
      if (const Json *devices = calibration->find(calibrationField::kDevices))
        spec.devices = devices->integer();
      if (const Json *ranksPerNode =
              calibration->find(calibrationField::kRanksPerNode))
        spec.ranksPerNode = ranksPerNode->integer();
    }
    for (const Json &program : document.at(field::kPrograms).items()) {
      ProgramSpec spec;
      spec.name = program.at(programField::kName).text();
      spec.entry = program.at(programField::kEntry).text();
      spec.reference = program.at(programField::kReference).text();
      if (const Json *of = program.find(programField::kDerivativeOf))
        spec.derivativeOf = of->text();
      if (const Json *inputs = program.find(programField::kVjpInputs))
        spec.vjpInputs = inputs->integers();
      const std::vector<Json> &inputs =
                                  program.at(programField::kInputs).items(),
                              &outputs =
                                  program.at(programField::kOutputs).items();
      for (size_t i = 0; i < inputs.size(); ++i)
        spec.tensors.push_back(readTensor(inputs[i], /*isInput=*/true,
                                          "program " + spec.name + ", input #" +
                                              std::to_string(i)));
      for (size_t i = 0; i < outputs.size(); ++i)
        spec.tensors.push_back(readTensor(
            outputs[i], /*isInput=*/false,
            "program " + spec.name + ", output #" + std::to_string(i)));
      metadata.programs.push_back(std::move(spec));
    }
    if (metadata.programs.empty())
      throw std::runtime_error("it lists no programs");
    return true;
  } catch (const std::exception &problem) {
    error = std::string("the library's metadata cannot be read: ") +
            problem.what();
    return false;
  }
}
