//===- TextSites.cpp - where an MLIR text can be edited -------------------===//

#include "TextSites.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace fuzz {
namespace {
bool isWordChar(char c) { return isAlnum(c) || c == '_'; }

/// Characters that make what follows part of a name rather than a word.
bool isSigil(char c) {
  return c == '%' || c == '#' || c == '^' || c == '@' || c == '!' || c == '.' ||
         c == '$';
}

/// Whether a word may start at `at`: after no name character, or after
/// the `x` of a shape (`8xf32`).
bool startsWord(StringRef text, size_t at) {
  if (at == 0)
    return true;
  char before = text[at - 1];
  if (before == 'x' && at >= 2 &&
      (isDigit(text[at - 2]) || text[at - 2] == '?'))
    return true;
  return !isWordChar(before) && !isSigil(before);
}

/// The position of the `close` that balances the `open` at `at`.
std::optional<size_t> matching(StringRef text, size_t at, char open,
                               char close) {
  int depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    if (text[i] == open)
      ++depth;
    else if (text[i] == close && --depth == 0)
      return i;
  }
  return std::nullopt;
}

/// `[1, 2]` as numbers, or none when it is not such a list.
std::optional<std::vector<int64_t>> parseIntegerList(StringRef list) {
  if (!list.consume_front("[") || !list.consume_back("]"))
    return std::nullopt;
  std::vector<int64_t> values;
  if (list.trim().empty())
    return values;
  SmallVector<StringRef> items;
  list.split(items, ',');
  for (StringRef item : items) {
    int64_t value;
    if (item.trim().getAsInteger(10, value))
      return std::nullopt;
    values.push_back(value);
  }
  return values;
}

/// `[[0], [], [1, 2]]` as axes per dim.
std::optional<std::vector<std::vector<int64_t>>> parseAxes(StringRef list) {
  if (!list.consume_front("[") || !list.consume_back("]"))
    return std::nullopt;
  std::vector<std::vector<int64_t>> axes;
  list = list.trim();
  while (!list.empty()) {
    size_t close = list.find(']');
    if (close == StringRef::npos)
      return std::nullopt;
    std::optional<std::vector<int64_t>> dim =
        parseIntegerList(list.take_front(close + 1).trim());
    if (!dim)
      return std::nullopt;
    axes.push_back(std::move(*dim));
    list = list.drop_front(close + 1).ltrim();
    list.consume_front(",");
    list = list.ltrim();
  }
  return axes;
}
} // namespace

std::string replaced(StringRef text, Span span, StringRef replacement) {
  return (text.take_front(span.begin) + replacement + text.drop_front(span.end))
      .str();
}

std::string replacedAll(StringRef text, const std::vector<Span> &spans,
                        StringRef replacement) {
  std::string result;
  size_t done = 0;
  for (Span span : spans) {
    result += text.slice(done, span.begin).str() + replacement.str();
    done = span.end;
  }
  return result + text.drop_front(done).str();
}

std::vector<Span> shapeDims(StringRef text) {
  std::vector<Span> dims;
  for (StringRef prefix : {"tensor<", "memref<", "vector<", "shape = "}) {
    for (size_t at = text.find(prefix); at != StringRef::npos;
         at = text.find(prefix, at + 1)) {
      size_t dim = at + prefix.size();
      while (dim < text.size()) {
        size_t end = dim;
        if (text[end] == '?')
          ++end;
        else
          while (end < text.size() && isDigit(text[end]))
            ++end;
        if (end == dim || end >= text.size() || text[end] != 'x')
          break;
        dims.push_back({dim, end});
        dim = end + 1;
      }
    }
  }
  llvm::sort(dims, [](Span a, Span b) { return a.begin < b.begin; });
  return dims;
}

std::vector<Span> integers(StringRef text) {
  std::vector<Span> found;
  for (size_t at = 0; at < text.size(); ++at) {
    if (!isDigit(text[at]) ||
        (at && (isWordChar(text[at - 1]) || isSigil(text[at - 1]) ||
                text[at - 1] == '?')))
      continue;
    size_t end = at;
    while (end < text.size() && isDigit(text[end]))
      ++end;
    bool glued = end < text.size() && (isWordChar(text[end]) ||
                                       text[end] == '.' || text[end] == '#');
    size_t begin = at && text[at - 1] == '-' ? at - 1 : at;
    if (!glued)
      found.push_back({begin, end});
    at = end;
  }
  return found;
}

std::vector<Span> words(StringRef text) {
  std::vector<Span> found;
  for (size_t at = 0; at < text.size(); ++at) {
    if (!isAlpha(text[at]) || !startsWord(text, at))
      continue;
    size_t end = at;
    while (end < text.size() && isWordChar(text[end]))
      ++end;
    if (end == text.size() || text[end] != '.')
      found.push_back({at, end});
    at = end;
  }
  return found;
}

std::vector<Span> opNames(StringRef text) {
  static constexpr StringLiteral dialects[] = {
      "fuser.", "hostir.", "linalg.", "tensor.", "arith.", "math.",
      "shard.", "func.",   "scf.",    "memref.", "gpu.",   "cf."};
  std::vector<Span> found;
  for (size_t at = 0; at < text.size(); ++at) {
    if (!startsWord(text, at) || (at && text[at - 1] == 'x'))
      continue;
    StringRef rest = text.drop_front(at);
    if (none_of(dialects, [&](StringRef d) { return rest.starts_with(d); }))
      continue;
    size_t end = at;
    while (end < text.size() && (isWordChar(text[end]) || text[end] == '.'))
      ++end;
    found.push_back({at, end});
    at = end;
  }
  return found;
}

std::vector<Span> ssaValues(StringRef text) {
  std::vector<Span> found;
  for (size_t at = text.find('%'); at != StringRef::npos;
       at = text.find('%', at + 1)) {
    size_t end = at + 1;
    while (end < text.size() && (isWordChar(text[end]) || text[end] == '$'))
      ++end;
    if (end > at + 1)
      found.push_back({at, end});
  }
  return found;
}

std::vector<Span> opLines(StringRef text) {
  std::vector<Span> lines;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == StringRef::npos)
      end = text.size();
    StringRef line = text.slice(begin, end).trim();
    if (!line.starts_with("//") && line.contains('%'))
      lines.push_back({begin, end});
    begin = end + 1;
  }
  return lines;
}

std::vector<ShardingSite> shardings(StringRef text) {
  constexpr StringLiteral prefix = "#fuser.sharding<";
  std::vector<ShardingSite> found;
  for (size_t at = text.find(prefix); at != StringRef::npos;
       at = text.find(prefix, at + 1)) {
    std::optional<size_t> close =
        matching(text, at + prefix.size() - 1, '<', '>');
    if (!close)
      continue;
    size_t open = text.find('[', at);
    // The mesh comes first: its own brackets are inside its `<...>`.
    size_t mesh = at + prefix.size();
    if (text.drop_front(mesh).starts_with("#fuser.mesh<"))
      if (std::optional<size_t> meshEnd =
              matching(text, text.find('<', mesh), '<', '>'))
        open = text.find('[', *meshEnd);
    if (open == StringRef::npos || open > *close)
      continue;
    std::optional<size_t> dimsEnd = matching(text, open, '[', ']');
    if (!dimsEnd || *dimsEnd > *close)
      continue;
    std::optional<std::vector<std::vector<int64_t>>> axes =
        parseAxes(text.slice(open, *dimsEnd + 1));
    if (!axes)
      continue;
    found.push_back({{at, *close + 1},
                     {open, *dimsEnd + 1},
                     std::move(*axes),
                     {*dimsEnd + 1, *close}});
  }
  return found;
}

std::string printAxes(const std::vector<std::vector<int64_t>> &axes) {
  std::vector<std::string> dims;
  for (const std::vector<int64_t> &dim : axes)
    dims.push_back(
        "[" +
        join(map_range(dim, [](int64_t a) { return std::to_string(a); }),
             ", ") +
        "]");
  return "[" + join(dims, ", ") + "]";
}

std::vector<MeshSite> meshes(StringRef text) {
  constexpr StringLiteral prefix = "#fuser.mesh<";
  std::vector<MeshSite> found;
  for (size_t at = text.find(prefix); at != StringRef::npos;
       at = text.find(prefix, at + 1)) {
    size_t open = at + prefix.size();
    std::optional<size_t> close = matching(text, open - 1, '<', '>');
    std::optional<size_t> sizesEnd = matching(text, open, '[', ']');
    if (!close || !sizesEnd || *sizesEnd > *close)
      continue;
    std::optional<std::vector<int64_t>> sizes =
        parseIntegerList(text.slice(open, *sizesEnd + 1));
    if (!sizes)
      continue;
    found.push_back(
        {{open, *sizesEnd + 1}, std::move(*sizes), {*sizesEnd + 1, *close}});
  }
  return found;
}

std::vector<std::string> splitFields(StringRef text) {
  std::vector<std::string> fields;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[' || c == '{')
      ++depth;
    else if (c == ']' || c == '}')
      --depth;
    if (c == ',' && depth == 0) {
      if (!StringRef(current).trim().empty())
        fields.push_back(StringRef(current).trim().str());
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!StringRef(current).trim().empty())
    fields.push_back(StringRef(current).trim().str());
  return fields;
}

} // namespace fuzz
