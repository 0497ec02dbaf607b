// LineEditor: the interactive shell's input line, through libedit (BSD editline): cursor keys,
// emacs key bindings, a history file, and tab completion from a caller-supplied source.
//
// The shell (sql_command.cc) asks for one line at a time with the prompt of its state ("shoal=>"
// or "shoal->"). Ctrl-C at the prompt interrupts the read (the shell then drops the half-typed
// statement); Ctrl-D on an empty line is the end of input. Only a terminal gets a LineEditor:
// scripts and pipes are read as they are.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct editline;
struct history;

namespace shoal::cli {

class LineEditor {
 public:
  /// Words that may complete `prefix` (already filtered by it or not: the editor filters).
  using Completer = std::function<std::vector<std::string>(std::string_view line_before_word,
                                                           std::string_view prefix)>;

  /// `history_path`: read at start, appended to as entries are added ("" : no file).
  LineEditor(std::string history_path, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  enum class Outcome { kLine, kInterrupted, kEnd };
  /// Reads one line (without its newline) into `*line`.
  Outcome ReadLine(const std::string& prompt, std::string* line);

  /// Adds a complete statement or command to the history (and to the file).
  void AddHistory(const std::string& entry);

  /// Called from the SIGINT handler: the read in progress returns kInterrupted.
  static void NoteInterrupt();

 private:
  static char* PromptOf(editline* el);
  static int ReadChar(editline* el, wchar_t* c);
  static unsigned char Complete(editline* el, int key);

  std::string history_path_;
  Completer completer_;
  std::string prompt_;
  editline* el_ = nullptr;
  history* history_ = nullptr;
};

}  // namespace shoal::cli
