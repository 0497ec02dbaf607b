#include "shoal/cli/line_editor.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cwchar>

#include <histedit.h>
#include <poll.h>
#include <unistd.h>

namespace shoal::cli {

namespace {

// Set by the SIGINT handler (a signal handler may only write a lock-free atomic), read by the
// editor's character source when its read() was interrupted.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
std::atomic<bool> g_prompt_interrupted{false};

// What ReadChar saw last: an interrupt, or the end of input.
enum class Stop { kNone, kInterrupted, kEnd };

struct Client {
  LineEditor* editor = nullptr;
  Stop stop = Stop::kNone;
  // Bytes of a multi-byte UTF-8 character read so far.
  std::mbstate_t state{};
};

Client* ClientOf(editline* el) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return static_cast<Client*>(data);
}

// The longest prefix shared by every word.
std::string CommonPrefix(const std::vector<std::string>& words) {
  if (words.empty())
    return "";
  std::string prefix = words[0];
  for (const auto& w : words) {
    size_t n = 0;
    while (n < prefix.size() && n < w.size() && prefix[n] == w[n])
      ++n;
    prefix.resize(n);
  }
  return prefix;
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '\\' ||
         (c & 0x80) != 0;
}

}  // namespace

void LineEditor::NoteInterrupt() {
  g_prompt_interrupted.store(true);
}

LineEditor::LineEditor(std::string history_path, Completer completer)
    : history_path_(std::move(history_path)), completer_(std::move(completer)) {
  el_ = el_init("shoal", stdin, stdout, stderr);
  history_ = history_init();
  HistEvent event;
  history(history_, &event, H_SETSIZE, 2000);
  history(history_, &event, H_SETUNIQUE, 1);
  if (!history_path_.empty())
    history(history_, &event, H_LOAD, history_path_.c_str());
  auto* client = new Client{this};
  el_set(el_, EL_CLIENTDATA, client);
  el_set(el_, EL_EDITOR, "emacs");
  el_set(el_, EL_HIST, history, history_);
  el_set(el_, EL_PROMPT, &LineEditor::PromptOf);
  // Our SIGINT handler stays in place (EL_SIGNAL off); the character source below turns an
  // interrupted read into the end of this line.
  el_set(el_, EL_SIGNAL, 0);
  el_wset(el_, EL_GETCFN, &LineEditor::ReadChar);
  el_set(el_, EL_ADDFN, "shoal-complete", "complete a keyword or name", &LineEditor::Complete);
  el_set(el_, EL_BIND, "^I", "shoal-complete", nullptr);
  // ~/.editrc, as every libedit program reads it.
  el_source(el_, nullptr);
}

LineEditor::~LineEditor() {
  delete ClientOf(el_);
  el_end(el_);
  history_end(history_);
}

char* LineEditor::PromptOf(editline* el) {
  return ClientOf(el)->editor->prompt_.data();
}

int LineEditor::ReadChar(editline* el, wchar_t* c) {
  Client* client = ClientOf(el);
  for (;;) {
    // poll() first: unlike read(), it is never restarted after a signal handler (SA_RESTART
    // keeps the shell's other reads and writes going), so a Ctrl-C reaches us here.
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) {
      if (errno != EINTR) {
        client->stop = Stop::kEnd;
        return 0;
      }
      if (g_prompt_interrupted.exchange(false)) {
        client->stop = Stop::kInterrupted;
        return 0;  // libedit ends the line as at end of input; ReadLine tells them apart
      }
      continue;
    }
    char byte = 0;
    ssize_t n = read(STDIN_FILENO, &byte, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      client->stop = Stop::kEnd;
      return 0;
    }
    wchar_t wc = 0;
    size_t used = std::mbrtowc(&wc, &byte, 1, &client->state);
    if (used == static_cast<size_t>(-2))
      continue;  // more bytes of this character to come
    if (used == static_cast<size_t>(-1)) {
      client->state = std::mbstate_t{};
      wc = static_cast<unsigned char>(byte);  // not UTF-8 in this locale: take the byte
    }
    *c = wc;
    return 1;
  }
}

unsigned char LineEditor::Complete(editline* el, int) {
  LineEditor* self = ClientOf(el)->editor;
  const LineInfo* info = el_line(el);
  std::string_view before(info->buffer, static_cast<size_t>(info->cursor - info->buffer));
  size_t start = before.size();
  while (start > 0 && IsWordChar(before[start - 1]))
    --start;
  // A quoted identifier completes after its quote.
  std::string_view prefix = before.substr(start);
  std::vector<std::string> words;
  for (auto& w : self->completer_(before.substr(0, start), prefix)) {
    bool matches = w.size() >= prefix.size();
    for (size_t i = 0; matches && i < prefix.size(); ++i)
      matches = std::tolower(static_cast<unsigned char>(w[i])) ==
                std::tolower(static_cast<unsigned char>(prefix[i]));
    if (matches)
      words.push_back(std::move(w));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  if (words.empty())
    return CC_REFRESH_BEEP;
  // Keywords typed in lower case complete in lower case.
  const bool lower = !prefix.empty() && std::islower(static_cast<unsigned char>(prefix[0]));
  for (auto& w : words) {
    if (lower && std::all_of(w.begin(), w.end(), [](char ch) {
          return std::isupper(static_cast<unsigned char>(ch)) || ch == '_' || ch == ' ';
        }))
      std::transform(w.begin(), w.end(), w.begin(),
                     [](char ch) { return static_cast<char>(std::tolower(ch)); });
  }
  if (words.size() == 1) {
    std::string rest = words[0].substr(prefix.size()) + " ";
    el_insertstr(el, rest.c_str());
    return CC_REDISPLAY;
  }
  std::string common = CommonPrefix(words);
  if (common.size() > prefix.size()) {
    el_insertstr(el, common.substr(prefix.size()).c_str());
    return CC_REDISPLAY;
  }
  // Ambiguous: list the choices under the line, then redraw it.
  std::fputs("\n", stdout);
  size_t width = 0;
  for (const auto& w : words)
    width = std::max(width, w.size());
  const size_t per_line = std::max<size_t>(1, 78 / (width + 2));
  for (size_t i = 0; i < words.size(); ++i) {
    std::fprintf(stdout, "%-*s%s", static_cast<int>(width + 2), words[i].c_str(),
                 (i + 1) % per_line == 0 || i + 1 == words.size() ? "\n" : "");
  }
  std::fflush(stdout);
  return CC_REDISPLAY;
}

LineEditor::Outcome LineEditor::ReadLine(const std::string& prompt, std::string* line) {
  prompt_ = prompt;
  g_prompt_interrupted.store(false);  // a Ctrl-C that cancelled the last statement is spent
  Client* client = ClientOf(el_);
  client->stop = Stop::kNone;
  int count = 0;
  const char* got = el_gets(el_, &count);
  if (client->stop == Stop::kInterrupted) {
    el_reset(el_);
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    return Outcome::kInterrupted;
  }
  if (got == nullptr || count <= 0) {
    return Outcome::kEnd;
  }
  line->assign(got, static_cast<size_t>(count));
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r'))
    line->pop_back();
  return Outcome::kLine;
}

void LineEditor::AddHistory(const std::string& entry) {
  if (entry.empty())
    return;
  HistEvent event;
  history(history_, &event, H_ENTER, entry.c_str());
  if (!history_path_.empty())
    history(history_, &event, H_SAVE, history_path_.c_str());
}

}  // namespace shoal::cli
