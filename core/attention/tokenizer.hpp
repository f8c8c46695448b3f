// Splitting the user's sentence into tokens for the attention lab. Text with spaces is
// split on whitespace ("我 喜欢 你" -> 我 | 喜欢 | 你); text without any whitespace that
// contains CJK characters is split per CJK character, keeping runs of other characters
// together ("我喜欢NLP" -> 我 | 喜 | 欢 | NLP). Input is UTF-8.
#pragma once
#include <string>
#include <vector>

namespace poslab {

// Throws InputError on invalid UTF-8 (naming the byte offset; strict: overlong forms,
// surrogates and code points past U+10FFFF are invalid), on an empty result, or when
// there are more than max_tokens tokens.
std::vector<std::string> tokenize_sentence(const std::string& text, int max_tokens);

// True for code points in the CJK ideograph, kana and hangul blocks the splitter treats as
// one token each.
bool is_cjk_code_point(char32_t c);

}  // namespace poslab
