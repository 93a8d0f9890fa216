//===- Mutator.cpp - seeded mutations of lit inputs -----------------------===//

#include "Mutator.h"

#include "Random.h"
#include "TextSites.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace llvm;

namespace fuzz {
namespace {
/// Element types found in the corpus and what may replace them.
constexpr StringLiteral elementTypes[] = {"f16", "bf16", "f32", "f64", "i1",
                                          "i8",  "i16",  "i32", "i64", "index"};
constexpr StringLiteral strangeElementTypes[] = {
    "f8E4M3FN", "f8E5M2",       "tf32",          "i4",  "ui8",
    "si32",     "complex<f32>", "vector<4xf32>", "none"};
constexpr StringLiteral reductionKinds[] = {"sum", "max",  "min",
                                            "avg", "prod", "xor"};

/// One edit: changes `text` and says what it did, or returns false when
/// the text has nowhere to apply it.
using Edit = bool (*)(std::string &text, Random &random, const Vocabulary &,
                      std::string &description);

std::string quoted(StringRef text) {
  text = text.trim();
  return "`" +
         (text.size() > 60 ? text.take_front(57).str() + "..." : text.str()) +
         "`";
}

/// A dim or axis size worth trying in place of `value`.
std::string strangeSize(Random &random, StringRef value, bool allowDynamic) {
  int64_t number = 4;
  value.getAsInteger(10, number);
  // Neighbours of sizes near the int64_t limit are the limit's choices.
  number = std::clamp<int64_t>(number, 0, int64_t(1) << 40);
  std::vector<std::string> choices = {
      "0",
      "1",
      "2",
      "3",
      "4",
      "5",
      "7",
      "8",
      "16",
      "1024",
      "65536",
      "4294967296",
      "9223372036854775807",
      std::to_string(number + 1),
      std::to_string(std::max<int64_t>(number - 1, 0)),
      std::to_string(number * 2),
      std::to_string(number / 2)};
  if (allowDynamic)
    choices.push_back("?");
  return random.pick<std::string>(choices);
}

/// Spans of `sites` whose text is `text`'s at `chosen`.
std::vector<Span> sameAs(StringRef text, ArrayRef<Span> sites, Span chosen) {
  std::vector<Span> same;
  copy_if(sites, std::back_inserter(same),
          [&](Span site) { return site.in(text) == chosen.in(text); });
  return same;
}

/// Replaces the site chosen among `sites` by `replacement`, or every site
/// with the same text when `everywhere`.
void replaceAt(std::string &text, ArrayRef<Span> sites, Span chosen,
               StringRef replacement, bool everywhere) {
  text = everywhere
             ? replacedAll(text, sameAs(text, sites, chosen), replacement)
             : replaced(text, chosen, replacement);
}

/// replaceAt, described as `what old -> new`.
std::string replaceSite(std::string &text, ArrayRef<Span> sites, Span chosen,
                        StringRef replacement, bool everywhere,
                        StringRef what) {
  std::string description = (what + " " + chosen.in(text) + " -> " +
                             replacement + (everywhere ? " (everywhere)" : ""))
                                .str();
  replaceAt(text, sites, chosen, replacement, everywhere);
  return description;
}

bool editShapeDim(std::string &text, Random &random, const Vocabulary &,
                  std::string &description) {
  std::vector<Span> dims = shapeDims(text);
  if (dims.empty())
    return false;
  Span dim = random.pick<Span>(dims);
  std::string old = dim.in(text).str();
  switch (random.below(4)) {
  case 0: // rank + 1
    text = replaced(text, {dim.begin, dim.begin}, old + "x");
    description = "shape dim " + old + " repeated";
    return true;
  case 1: // rank - 1
    text = replaced(text, {dim.begin, dim.end + 1}, "");
    description = "shape dim " + old + " dropped";
    return true;
  default:
    description = replaceSite(text, dims, dim, strangeSize(random, old, true),
                              /*everywhere=*/random.chance(50), "shape dim");
    return true;
  }
}

bool editInteger(std::string &text, Random &random, const Vocabulary &,
                 std::string &description) {
  std::optional<Span> site = random.maybePick<Span>(integers(text));
  if (!site)
    return false;
  std::string old = site->in(text).str();
  std::string value = random.chance(80)
                          ? strangeSize(random, old, /*allowDynamic=*/false)
                          : random.pick<std::string>({"-1", "-2", "2147483648",
                                                      "-9223372036854775808",
                                                      "18446744073709551616"});
  text = replaced(text, *site, value);
  description = "integer " + old + " -> " + value;
  return true;
}

bool editElementType(std::string &text, Random &random, const Vocabulary &,
                     std::string &description) {
  std::vector<Span> sites;
  copy_if(words(text), std::back_inserter(sites),
          [&](Span s) { return is_contained(elementTypes, s.in(text)); });
  if (sites.empty())
    return false;
  StringRef type = random.chance(75)
                       ? random.pick<StringLiteral>(elementTypes)
                       : random.pick<StringLiteral>(strangeElementTypes);
  description = replaceSite(text, sites, random.pick<Span>(sites), type,
                            /*everywhere=*/random.chance(60), "element type");
  return true;
}

bool editMesh(std::string &text, Random &random, const Vocabulary &,
              std::string &description) {
  std::vector<MeshSite> sites = meshes(text);
  if (sites.empty())
    return false;
  MeshSite mesh = random.pick<MeshSite>(sites);
  std::vector<int64_t> sizes = mesh.sizes;
  std::string old = mesh.sizesList.in(text).str();
  switch (random.below(4)) {
  case 0:
    sizes.push_back(random.pick<int64_t>({1, 2, 3, 4}));
    break;
  case 1:
    if (!sizes.empty())
      sizes.erase(sizes.begin() + random.below(sizes.size()));
    break;
  case 2:
    if (sizes.size() >= 2)
      std::swap(sizes[0], sizes[1]);
    break;
  default: {
    // Devices listed explicitly: a permutation, or a broken list, of at
    // most 16 (a mutated mesh's sizes may multiply past 64 bits).
    int64_t count = 1;
    for (int64_t size : sizes)
      count = std::min<int64_t>(16, std::clamp<int64_t>(size, 0, 16) * count);
    std::vector<int64_t> devices(count);
    std::iota(devices.begin(), devices.end(), 0);
    for (size_t i = devices.size(); i > 1; --i)
      std::swap(devices[i - 1], devices[random.below(i)]);
    if (random.chance(40) && !devices.empty())
      devices[random.below(devices.size())] = random.pick<int64_t>({0, -1, 99});
    std::string list =
        "[" +
        join(map_range(devices, [](int64_t d) { return std::to_string(d); }),
             ", ") +
        "]";
    text = replaced(text, mesh.fields, ", devices = " + list);
    description = "mesh " + old + " devices = " + list;
    return true;
  }
  }
  std::string list =
      "[" +
      join(map_range(sizes, [](int64_t s) { return std::to_string(s); }),
           ", ") +
      "]";
  text = replaced(text, mesh.sizesList, list);
  description = "mesh " + old + " -> " + list;
  return true;
}

/// Replaces `site`'s attribute by `replacement` there or everywhere it
/// appears.
void replaceSharding(std::string &text, Random &random,
                     const ShardingSite &site, StringRef replacement,
                     std::string &description) {
  std::vector<Span> attributes;
  for (const ShardingSite &other : shardings(text))
    attributes.push_back(other.attribute);
  bool everywhere = random.chance(50);
  description += everywhere ? " (everywhere)" : "";
  replaceAt(text, attributes, site.attribute, replacement, everywhere);
}

bool editShardingAxes(std::string &text, Random &random, const Vocabulary &,
                      std::string &description) {
  std::vector<ShardingSite> sites = shardings(text);
  if (sites.empty())
    return false;
  const ShardingSite &site = random.pick<ShardingSite>(sites);
  std::vector<std::vector<int64_t>> axes = site.axes;
  int64_t axis = random.pick<int64_t>({0, 0, 1, 1, 2, 3, -1});
  switch (random.below(6)) {
  case 0: // an axis added to a dim (maybe one it is on already)
    if (!axes.empty())
      axes[random.below(axes.size())].push_back(axis);
    break;
  case 1: // an axis removed
    for (std::vector<int64_t> &dim : axes)
      if (!dim.empty()) {
        dim.erase(dim.begin() + random.below(dim.size()));
        break;
      }
    break;
  case 2: // dims swapped
    if (axes.size() >= 2)
      std::swap(axes[random.below(axes.size())],
                axes[random.below(axes.size())]);
    break;
  case 3: // rank + 1
    axes.push_back({});
    break;
  case 4: // rank - 1
    if (!axes.empty())
      axes.pop_back();
    break;
  default: // replicated
    for (std::vector<int64_t> &dim : axes)
      dim.clear();
    break;
  }
  std::string attribute = replaced(site.attribute.in(text),
                                   {site.dims.begin - site.attribute.begin,
                                    site.dims.end - site.attribute.begin},
                                   printAxes(axes));
  description =
      "sharding axes " + printAxes(site.axes) + " -> " + printAxes(axes);
  replaceSharding(text, random, site, attribute, description);
  return true;
}

/// A sharding field with made-up values, for a tensor of rank `rank`.
std::string randomField(Random &random, size_t rank) {
  auto dim = [&] {
    return std::to_string(random.below(std::max<size_t>(rank, 1) + 1));
  };
  switch (random.below(4)) {
  case 0: {
    std::string field = "partial = {" + std::to_string(random.below(3)) +
                        " : " +
                        random.pick<StringLiteral>(reductionKinds).str();
    if (random.chance(20))
      field += ", " + std::to_string(random.below(3)) + " : sum";
    return field + "}";
  }
  case 1:
    return "stream = {" + dim() + " : " +
           random.pick<std::string>({"0", "1", "2", "3", "4", "8", "64"}) +
           (random.chance(30) ? " chunked" : "") + "}";
  case 2: {
    std::vector<std::string> order;
    for (size_t i = 0; i < rank; ++i)
      order.push_back(std::to_string(i));
    for (size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[random.below(i)]);
    if (random.chance(30))
      order.push_back(dim());
    return "order = [" + join(order, ", ") + "]";
  }
  default: {
    std::vector<std::string> contiguity;
    for (size_t i = 0, e = rank + (random.chance(20) ? 1 : 0); i < e; ++i)
      contiguity.push_back(random.chance(50) ? "true" : "false");
    return "contiguity = [" + join(contiguity, ", ") + "]";
  }
  }
}

bool editShardingFields(std::string &text, Random &random, const Vocabulary &,
                        std::string &description) {
  std::vector<ShardingSite> sites = shardings(text);
  if (sites.empty())
    return false;
  const ShardingSite &site = random.pick<ShardingSite>(sites);
  std::vector<std::string> fields = splitFields(site.fields.in(text));
  std::string old = join(fields, ", ");
  if (!fields.empty() && random.chance(40))
    fields.erase(fields.begin() + random.below(fields.size()));
  else if (!fields.empty() && random.chance(50))
    fields[random.below(fields.size())] = randomField(random, site.axes.size());
  else
    fields.push_back(randomField(random, site.axes.size()));
  std::string attribute =
      replaced(site.attribute.in(text),
               {site.fields.begin - site.attribute.begin,
                site.fields.end - site.attribute.begin},
               fields.empty() ? "" : ", " + join(fields, ", "));
  description = "sharding fields {" + old + "} -> {" + join(fields, ", ") + "}";
  replaceSharding(text, random, site, attribute, description);
  return true;
}

bool deleteLine(std::string &text, Random &random, const Vocabulary &,
                std::string &description) {
  std::optional<Span> line = random.maybePick<Span>(opLines(text));
  if (!line)
    return false;
  description = "deleted " + quoted(line->in(text));
  text =
      replaced(text, {line->begin, std::min(line->end + 1, text.size())}, "");
  return true;
}

bool duplicateLine(std::string &text, Random &random, const Vocabulary &,
                   std::string &description) {
  std::optional<Span> line = random.maybePick<Span>(opLines(text));
  if (!line)
    return false;
  std::string copy = line->in(text).str();
  // The copy defines values of its own.
  size_t assignment = copy.find(" = ");
  if (StringRef(copy).ltrim().starts_with("%") &&
      assignment != std::string::npos) {
    std::string results = copy.substr(0, assignment);
    std::vector<Span> values = ssaValues(results);
    for (Span value : llvm::reverse(values))
      results = replaced(results, {value.end, value.end}, "_dup");
    copy = results + copy.substr(assignment);
  }
  text = replaced(text, {line->end, line->end}, "\n" + copy);
  description = "duplicated " + quoted(line->in(text));
  return true;
}

bool moveLine(std::string &text, Random &random, const Vocabulary &,
              std::string &description) {
  std::vector<Span> lines = opLines(text);
  if (lines.size() < 2)
    return false;
  size_t from = random.below(lines.size());
  size_t to = random.below(lines.size());
  if (from == to)
    return false;
  std::string moved = lines[from].in(text).str() + "\n";
  description =
      "moved " + quoted(moved) + " to before " + quoted(lines[to].in(text));
  size_t fromBegin = lines[from].begin,
         fromEnd = std::min(lines[from].end + 1, text.size());
  size_t toBegin = lines[to].begin;
  text.insert(toBegin, moved);
  if (toBegin <= fromBegin) {
    fromBegin += moved.size();
    fromEnd += moved.size();
  }
  text.erase(fromBegin, fromEnd - fromBegin);
  return true;
}

/// The values an op line uses: those after its `=`, if it has one.
std::vector<Span> usesOnLine(StringRef text, Span line) {
  size_t assignment = line.in(text).find(" = ");
  size_t from =
      assignment == StringRef::npos ? line.begin : line.begin + assignment;
  std::vector<Span> uses;
  for (Span value : ssaValues(text.slice(from, line.end)))
    uses.push_back({value.begin + from, value.end + from});
  return uses;
}

bool swapOperands(std::string &text, Random &random, const Vocabulary &,
                  std::string &description) {
  std::optional<Span> line = random.maybePick<Span>(opLines(text));
  if (!line)
    return false;
  std::vector<Span> uses = usesOnLine(text, *line);
  if (uses.size() < 2)
    return false;
  size_t a = random.below(uses.size()), b = random.below(uses.size());
  if (a == b || uses[a].in(text) == uses[b].in(text))
    return false;
  if (a > b)
    std::swap(a, b);
  std::string first = uses[a].in(text).str(), second = uses[b].in(text).str();
  description =
      "swapped " + first + " and " + second + " in " + quoted(line->in(text));
  text = replaced(text, uses[b], first);
  text = replaced(text, uses[a], second);
  return true;
}

bool replaceOperand(std::string &text, Random &random, const Vocabulary &,
                    std::string &description) {
  std::optional<Span> line = random.maybePick<Span>(opLines(text));
  if (!line)
    return false;
  // Lines that use values also name one: `other` always exists.
  std::optional<Span> use = random.maybePick<Span>(usesOnLine(text, *line));
  if (!use)
    return false;
  std::string other = random.pick<Span>(ssaValues(text)).in(text).str();
  if (other == use->in(text))
    return false;
  description =
      use->in(text).str() + " -> " + other + " in " + quoted(line->in(text));
  text = replaced(text, *use, other);
  return true;
}

bool replaceOpName(std::string &text, Random &random,
                   const Vocabulary &vocabulary, std::string &description) {
  std::optional<Span> site = random.maybePick<Span>(opNames(text));
  if (!site || vocabulary.opNames.empty())
    return false;
  StringRef old = site->in(text);
  // Mostly an op of the same dialect.
  std::vector<std::string> sameDialect;
  copy_if(vocabulary.opNames, std::back_inserter(sameDialect),
          [&](const std::string &name) {
            return StringRef(name).split('.').first == old.split('.').first;
          });
  std::string name = random.chance(70) && !sameDialect.empty()
                         ? random.pick<std::string>(sameDialect)
                         : random.pick<std::string>(vocabulary.opNames);
  description = "op " + old.str() + " -> " + name;
  text = replaced(text, *site, name);
  return true;
}

bool replaceWord(std::string &text, Random &random,
                 const Vocabulary &vocabulary, std::string &description) {
  std::optional<Span> site = random.maybePick<Span>(words(text));
  if (!site || vocabulary.words.empty())
    return false;
  std::string word = random.pick<std::string>(vocabulary.words);
  description = "word " + site->in(text).str() + " -> " + word;
  text = replaced(text, *site, word);
  return true;
}

struct WeightedEdit {
  Edit edit;
  unsigned weight;
};
constexpr WeightedEdit edits[] = {
    {editShapeDim, 4}, {editInteger, 4},      {editElementType, 3},
    {editMesh, 2},     {editShardingAxes, 4}, {editShardingFields, 4},
    {deleteLine, 3},   {duplicateLine, 2},    {moveLine, 1},
    {swapOperands, 2}, {replaceOperand, 2},   {replaceOpName, 2},
    {replaceWord, 1}};

Edit pickEdit(Random &random) {
  unsigned total = 0;
  for (const WeightedEdit &e : edits)
    total += e.weight;
  unsigned choice = random.below(total);
  for (const WeightedEdit &e : edits) {
    if (choice < e.weight)
      return e.edit;
    choice -= e.weight;
  }
  llvm_unreachable("weights cover every choice");
}
} // namespace

Vocabulary::Vocabulary(ArrayRef<Case> corpus) {
  std::set<std::string> ops, bare;
  for (const Case &input : corpus) {
    for (Span site : fuzz::opNames(input.text))
      ops.insert(site.in(input.text).str());
    for (Span site : fuzz::words(input.text))
      bare.insert(site.in(input.text).str());
  }
  opNames.assign(ops.begin(), ops.end());
  words.assign(bare.begin(), bare.end());
}

Mutator::Mutator(ArrayRef<Case> corpus) : corpus(corpus), vocabulary(corpus) {}

Mutant Mutator::mutate(uint64_t seed, uint64_t index) const {
  Random random(seed, index);
  Mutant mutant;
  mutant.source = &corpus[random.below(corpus.size())];
  mutant.text = mutant.source->text;
  unsigned wanted = random.pick<unsigned>({1, 1, 1, 1, 1, 2, 2, 2, 3, 3});
  // Edits that find no place to apply give way to others.
  for (unsigned attempts = 0;
       mutant.edits.size() < wanted && attempts < 8 * wanted; ++attempts) {
    std::string description;
    if (pickEdit(random)(mutant.text, random, vocabulary, description))
      mutant.edits.push_back(std::move(description));
  }
  return mutant;
}

} // namespace fuzz
