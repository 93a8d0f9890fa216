//===- ProgramMetadata.cpp - the JSON document of a compiled library -----===//
//
// The runtime builds without LLVM (whose JSON reader the compiler uses to
// write the document), so it reads the subset of JSON the document uses:
// objects, arrays, strings without escapes other than \" and \\, integers.
//
//===----------------------------------------------------------------------===//

#include "ProgramMetadata.h"

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>

using namespace fuser;

namespace {
struct Json {
  enum Kind { Object, Array, String, Number, Boolean, Null } kind = Null;
  std::map<std::string, Json> object;
  std::vector<Json> array;
  std::string string;
  int64_t number = 0;

  const Json &at(const std::string &key) const {
    auto found = object.find(key);
    if (kind != Object || found == object.end())
      throw std::runtime_error("no field \"" + key + "\"");
    return found->second;
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
  std::vector<int64_t> integers() const {
    std::vector<int64_t> values;
    for (const Json &item : items()) {
      if (item.kind != Number)
        throw std::runtime_error("an integer was expected");
      values.push_back(item.number);
    }
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
      size_t used = 0;
      value.number = std::stoll(text.substr(position), &used);
      position += used;
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

TensorSpec readTensor(const Json &json, bool isInput) {
  TensorSpec tensor;
  tensor.isInput = isInput;
  tensor.dtype = json.at("dtype").text();
  tensor.code = parseDType(tensor.dtype);
  tensor.shape = json.at("shape").integers();
  tensor.mesh.shape = json.at("mesh").at("shape").integers();
  tensor.mesh.devices = json.at("mesh").at("devices").integers();
  for (const Json &axes : json.at("dim_axes").items())
    tensor.dimAxes.push_back(axes.integers());
  if (tensor.dimAxes.size() != tensor.shape.size())
    throw std::runtime_error("a tensor's dim_axes do not match its shape");
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
    Json document = Reader(text).readDocument();
    if (document.at("format").text() != "fuser-program")
      throw std::runtime_error("not a fuser-program library");
    if (document.at("version").number != FUSER_PROGRAM_ABI_VERSION)
      throw std::runtime_error(
          "built for version " +
          std::to_string(static_cast<int64_t>(document.at("version").number)) +
          " of the runtime's calls, this runtime has version " +
          std::to_string(FUSER_PROGRAM_ABI_VERSION) +
          "; recompile the program with this fuser-compile");
    metadata.target = document.at("target").text();
    for (const Json &program : document.at("programs").items()) {
      ProgramSpec spec;
      spec.name = program.at("name").text();
      spec.entry = program.at("entry").text();
      spec.reference = program.at("reference").text();
      for (const Json &input : program.at("inputs").items())
        spec.tensors.push_back(readTensor(input, /*isInput=*/true));
      for (const Json &output : program.at("outputs").items())
        spec.tensors.push_back(readTensor(output, /*isInput=*/false));
      metadata.programs.push_back(std::move(spec));
    }
    return true;
  } catch (const std::exception &problem) {
    error = std::string("the library's metadata cannot be read: ") +
            problem.what();
    return false;
  }
}
