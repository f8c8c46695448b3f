// Lesson text: Markdown parsed by md4c into a flat list of blocks made of styled spans,
// simple enough for an immediate-mode GUI to draw line by line (headings, paragraphs,
// list items, code blocks, quotes, table rows, rules). Links whose target starts with
// "lab:" are lab presets: the panel draws them as buttons that open the lab.
#pragma once
#include <string>
#include <vector>

namespace poslab::io {

struct MdSpan {
  std::string text;       // UTF-8; a hard line break is "\n"
  bool strong = false;    // **bold**
  bool emphasis = false;  // *italic*
  bool code = false;      // `code`
  bool strike = false;    // ~~struck~~
  std::string link;       // target when inside a link, e.g. "lab:rope?dim=8" or "https://..."
};

enum class MdBlockKind { heading, paragraph, list_item, code, rule, table_row };

struct MdBlock {
  MdBlockKind kind = MdBlockKind::paragraph;
  int level = 0;                           // heading: 1..6
  int indent = 0;                          // list nesting depth (0 = not in a list)
  int quote = 0;                           // block-quote depth (0 = not quoted)
  bool ordered = false;                    // list_item: numbered list
  int number = 0;                          // list_item: its number in an ordered list
  bool continuation = false;               // paragraph continuing a list item (no bullet)
  std::vector<MdSpan> spans;               // heading, paragraph, list_item
  std::vector<std::vector<MdSpan>> cells;  // table_row
  bool header = false;                     // table_row: header row
  int columns = 0;                         // table_row: columns of its table
  std::string code;                        // code: the text, lines ending in "\n"
  std::string lang;                        // code: info string, e.g. "python"
};

struct MdDocument {
  std::vector<MdBlock> blocks;
};

// Never fails on content (every text is valid Markdown); throws InputError only when
// md4c itself gives up (out of memory).
MdDocument parse_markdown(const std::string& text);

inline constexpr const char* kLabLinkPrefix = "lab:";
// Preset strings of every "lab:" link, in document order, without the prefix.
std::vector<std::string> markdown_lab_links(const MdDocument& doc);
// All text of a block's spans (or cells) joined; useful for tests and search.
std::string markdown_plain_text(const MdBlock& block);

// A Predict callout: a fenced block with the info string "predict" whose text is the id of
// a predict question in the lesson's quiz.toml. It stands before the text that answers it;
// that text, and everything after it, stays folded until the learner has committed a
// prediction (a Summary or a Try-this section may restate the answer; issue 41):
//
//   ```predict
//   q2-shuffle
//   ```
//   (the answering text, the rest of the lesson and its later callouts: folded)
inline constexpr const char* kPredictFence = "predict";
struct MdCallout {
  size_t block = 0;     // index of the fenced block in MdDocument::blocks
  std::string id;       // the question id written in it (trimmed)
  size_t fold_end = 0;  // blocks (block, fold_end) are folded until the prediction is made:
                        // the end of the document
};
std::vector<MdCallout> markdown_predict_callouts(const MdDocument& doc);

}  // namespace poslab::io
