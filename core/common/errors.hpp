// Typed errors raised by the core. Each message is written for the person who caused it:
// it names the bad value or file and says what to do. The app shows them as a banner,
// the command line prints them on one line and exits with code 2.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "core/common/message.hpp"

namespace poslab {

// Base of every error the core raises on bad input (never on a programmer error).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parameter value out of range or malformed ("head_dim = 3: must be even, 2..512").
// Thrown with a Message, what() is its English text and the app can show it translated.
class InputError : public Error {
 public:
  using Error::Error;
  explicit InputError(Message m)
      : Error(m.text), message_(std::make_shared<const Message>(std::move(m))) {}
  // The structured message, or plain text (no id) when thrown with a string.
  Message message() const { return message_ ? *message_ : message_plain(what()); }

 private:
  std::shared_ptr<const Message> message_;  // shared: copying an exception must not throw
};

// A file that is missing, unreadable, truncated or of the wrong format or version.
class FileError : public Error {
 public:
  FileError(const std::string& path, const std::string& what)
      : Error(path + ": " + what), path_(path) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace poslab
