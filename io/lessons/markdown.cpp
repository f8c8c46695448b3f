// md4c callbacks building the block/span structure of markdown.hpp. md4c reports a SAX
// stream; a small stack of open containers (lists, quotes) gives each block its indent.
#include "io/lessons/markdown.hpp"

#include <md4c.h>

#include <string_view>

#include "core/common/errors.hpp"

namespace poslab::io {
namespace {

// The five XML entities and numeric references; md4c hands entities over undecoded.
std::string decode_entity(std::string_view e) {
  if (e == "&amp;") return "&";
  if (e == "&lt;") return "<";
  if (e == "&gt;") return ">";
  if (e == "&quot;") return "\"";
  if (e == "&apos;") return "'";
  if (e == "&nbsp;") return "\xC2\xA0";
  if (e.size() > 3 && e[1] == '#') {
    const bool hex = e[2] == 'x' || e[2] == 'X';
    const std::string digits(e.substr(hex ? 3 : 2, e.size() - (hex ? 4 : 3)));
    unsigned long cp = 0;
    try {
      cp = std::stoul(digits, nullptr, hex ? 16 : 10);
    } catch (const std::exception&) {
      return std::string(e);
    }
    if (cp == 0 || cp > 0x10FFFF) cp = 0xFFFD;
    std::string out;
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
  }
  return std::string(e);  // unknown named entity: keep it as written
}

std::string attribute_text(const MD_ATTRIBUTE& a) {
  std::string out;
  if (a.text == nullptr) return out;
  for (int i = 0; a.substr_offsets[i] < a.size; ++i) {
    const std::string_view piece(a.text + a.substr_offsets[i],
                                 a.substr_offsets[i + 1] - a.substr_offsets[i]);
    out += a.substr_types[i] == MD_TEXT_ENTITY ? decode_entity(piece) : std::string(piece);
  }
  return out;
}

struct ListState {
  bool ordered;
  int next_number;
};

struct Builder {
  MdDocument doc;
  std::vector<ListState> lists;
  int quote = 0;
  bool in_item = false;        // inside an LI whose first paragraph is not yet closed
  bool item_has_text = false;  // the current LI block received its first paragraph
  bool in_thead = false;
  int table_columns = 0;
  int strong = 0, emphasis = 0, code = 0, strike = 0;
  std::vector<std::string> links;
  // Indices, not pointers: the block vector grows while md4c streams.
  int current = -1;        // block receiving text (-1 between blocks)
  int cell = -1;           // table_row: cell receiving text; -1 = the block's own spans
  bool accepting = false;  // text is wanted (false e.g. between table cells)

  MdBlock& open(MdBlockKind kind) {
    MdBlock b;
    b.kind = kind;
    b.indent = static_cast<int>(lists.size());
    b.quote = quote;
    doc.blocks.push_back(std::move(b));
    current = static_cast<int>(doc.blocks.size()) - 1;
    cell = -1;
    accepting = true;
    return doc.blocks.back();
  }
  MdBlock* block() { return current < 0 ? nullptr : &doc.blocks[static_cast<size_t>(current)]; }
  void close() {
    current = -1;
    cell = -1;
    accepting = false;
  }

  void add_text(std::string_view text) {
    MdBlock* blk = block();
    if (blk == nullptr || !accepting) return;
    if (blk->kind == MdBlockKind::code) {
      blk->code.append(text);
      return;
    }
    std::vector<MdSpan>* target = cell < 0 ? &blk->spans : &blk->cells[static_cast<size_t>(cell)];
    MdSpan style;
    style.strong = strong > 0;
    style.emphasis = emphasis > 0;
    style.code = code > 0;
    style.strike = strike > 0;
    if (!links.empty()) style.link = links.back();
    if (!target->empty()) {
      MdSpan& last = target->back();
      if (last.strong == style.strong && last.emphasis == style.emphasis &&
          last.code == style.code && last.strike == style.strike && last.link == style.link) {
        last.text.append(text);
        return;
      }
    }
    style.text = std::string(text);
    target->push_back(std::move(style));
  }
};

int on_enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  auto& b = *static_cast<Builder*>(user);
  switch (type) {
    case MD_BLOCK_DOC:
      break;
    case MD_BLOCK_QUOTE:
      ++b.quote;
      break;
    case MD_BLOCK_UL:
      b.lists.push_back({false, 0});
      break;
    case MD_BLOCK_OL:
      b.lists.push_back({true, static_cast<int>(static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start)});
      break;
    case MD_BLOCK_LI: {
      MdBlock& li = b.open(MdBlockKind::list_item);
      if (!b.lists.empty()) {
        li.ordered = b.lists.back().ordered;
        li.number = b.lists.back().next_number++;
      }
      b.in_item = true;
      b.item_has_text = false;
      break;
    }
    case MD_BLOCK_HR:
      b.open(MdBlockKind::rule);
      b.close();
      break;
    case MD_BLOCK_H:
      b.open(MdBlockKind::heading).level =
          static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
      break;
    case MD_BLOCK_CODE:
      b.open(MdBlockKind::code).lang =
          attribute_text(static_cast<MD_BLOCK_CODE_DETAIL*>(detail)->lang);
      break;
    case MD_BLOCK_HTML:
      b.open(MdBlockKind::code);
      break;
    case MD_BLOCK_P:
      if (b.in_item && !b.item_has_text) {
        // First paragraph of a loose list item: its text goes on the bullet's line.
        b.current = static_cast<int>(b.doc.blocks.size()) - 1;
        b.cell = -1;
        b.accepting = true;
      } else {
        b.open(MdBlockKind::paragraph).continuation = b.in_item || !b.lists.empty();
      }
      break;
    case MD_BLOCK_TABLE:
      b.table_columns = static_cast<int>(static_cast<MD_BLOCK_TABLE_DETAIL*>(detail)->col_count);
      break;
    case MD_BLOCK_THEAD:
      b.in_thead = true;
      break;
    case MD_BLOCK_TBODY:
      break;
    case MD_BLOCK_TR: {
      MdBlock& row = b.open(MdBlockKind::table_row);
      row.header = b.in_thead;
      row.columns = b.table_columns;
      b.accepting = false;
      break;
    }
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      if (MdBlock* row = b.block(); row && row->kind == MdBlockKind::table_row) {
        row->cells.emplace_back();
        b.cell = static_cast<int>(row->cells.size()) - 1;
        b.accepting = true;
      }
      break;
  }
  return 0;
}

// md4c 0.4.8 can leave a span it never entered (a link after an image's alt text, found by
// fuzz/fuzz_markdown.cpp): every "leave" is tolerated when nothing is open.
void leave(int& depth) {
  if (depth > 0) --depth;
}

int on_leave_block(MD_BLOCKTYPE type, void*, void* user) {
  auto& b = *static_cast<Builder*>(user);
  switch (type) {
    case MD_BLOCK_QUOTE:
      leave(b.quote);
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      if (!b.lists.empty()) b.lists.pop_back();
      break;
    case MD_BLOCK_LI:
      b.in_item = false;
      b.close();
      break;
    case MD_BLOCK_P:
      if (b.in_item) b.item_has_text = true;
      b.close();
      break;
    case MD_BLOCK_THEAD:
      b.in_thead = false;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      b.accepting = false;
      break;
    case MD_BLOCK_H:
    case MD_BLOCK_CODE:
    case MD_BLOCK_HTML:
    case MD_BLOCK_TR:
      b.close();
      if (b.in_item) b.item_has_text = true;  // later paragraphs of the item continue it
      break;
    default:
      break;
  }
  return 0;
}

int on_enter_span(MD_SPANTYPE type, void* detail, void* user) {
  auto& b = *static_cast<Builder*>(user);
  switch (type) {
    case MD_SPAN_EM:
      ++b.emphasis;
      break;
    case MD_SPAN_STRONG:
      ++b.strong;
      break;
    case MD_SPAN_CODE:
      ++b.code;
      break;
    case MD_SPAN_DEL:
      ++b.strike;
      break;
    case MD_SPAN_A:
      b.links.push_back(attribute_text(static_cast<MD_SPAN_A_DETAIL*>(detail)->href));
      break;
    default:
      break;  // images show their alt text; no other spans are enabled
  }
  return 0;
}

int on_leave_span(MD_SPANTYPE type, void*, void* user) {
  auto& b = *static_cast<Builder*>(user);
  switch (type) {
    case MD_SPAN_EM:
      leave(b.emphasis);
      break;
    case MD_SPAN_STRONG:
      leave(b.strong);
      break;
    case MD_SPAN_CODE:
      leave(b.code);
      break;
    case MD_SPAN_DEL:
      leave(b.strike);
      break;
    case MD_SPAN_A:
      if (!b.links.empty()) b.links.pop_back();
      break;
    default:
      break;
  }
  return 0;
}

int on_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* user) {
  auto& b = *static_cast<Builder*>(user);
  const std::string_view t(text, size);
  switch (type) {
    case MD_TEXT_NULLCHAR:
      b.add_text("\xEF\xBF\xBD");
      break;
    case MD_TEXT_BR:
      b.add_text("\n");
      break;
    case MD_TEXT_SOFTBR:
      b.add_text(" ");
      break;
    case MD_TEXT_ENTITY:
      b.add_text(decode_entity(t));
      break;
    default:
      b.add_text(t);
      break;
  }
  return 0;
}

}  // namespace

MdDocument parse_markdown(const std::string& text) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTML;
  parser.enter_block = on_enter_block;
  parser.leave_block = on_leave_block;
  parser.enter_span = on_enter_span;
  parser.leave_span = on_leave_span;
  parser.text = on_text;
  Builder b;
  if (md_parse(text.data(), static_cast<MD_SIZE>(text.size()), &parser, &b) != 0)
    throw InputError("Markdown parser failed (out of memory?)");
  return std::move(b.doc);
}

std::vector<std::string> markdown_lab_links(const MdDocument& doc) {
  std::vector<std::string> out;
  const std::string prefix = kLabLinkPrefix;
  auto scan = [&](const std::vector<MdSpan>& spans) {
    std::string last;
    for (const auto& s : spans) {
      if (s.link.rfind(prefix, 0) == 0 && s.link != last)
        out.push_back(s.link.substr(prefix.size()));
      last = s.link;
    }
  };
  for (const auto& block : doc.blocks) {
    scan(block.spans);
    for (const auto& cell : block.cells) scan(cell);
  }
  return out;
}

std::vector<MdCallout> markdown_predict_callouts(const MdDocument& doc) {
  std::vector<MdCallout> out;
  const auto& blocks = doc.blocks;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].kind != MdBlockKind::code || blocks[i].lang != kPredictFence) continue;
    MdCallout c;
    c.block = i;
    const std::string& text = blocks[i].code;
    const size_t first = text.find_first_not_of(" \t\r\n");
    const size_t last = text.find_last_not_of(" \t\r\n");
    if (first != std::string::npos) c.id = text.substr(first, last - first + 1);
    // The fold runs to the end of the lesson: a Summary or Try-this section may restate the
    // answer, and so may a later section (issue 41). Later callouts are inside it too, so the
    // predictions are made in order.
    c.fold_end = blocks.size();
    out.push_back(std::move(c));
  }
  return out;
}

std::string markdown_plain_text(const MdBlock& block) {
  if (block.kind == MdBlockKind::code) return block.code;
  std::string out;
  for (const auto& s : block.spans) out += s.text;
  for (size_t i = 0; i < block.cells.size(); ++i) {
    if (i) out += " | ";
    for (const auto& s : block.cells[i]) out += s.text;
  }
  return out;
}

}  // namespace poslab::io
