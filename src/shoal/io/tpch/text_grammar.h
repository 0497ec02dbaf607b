// TextGrammar: the sentence generator behind every TPC-H comment column (clause 4.2.2.10).
//
// A sentence is a sentence form ("N V P T": noun phrase, verb phrase, prepositional phrase,
// terminator) whose parts are filled from noun and verb phrase forms ("J, J N": adjective, comma,
// adjective, noun) and then words, each choice one weighted pick from a single random stream.
// TextPool strings millions of these sentences together; comments are slices of that pool.
//
// The forms are compiled once into index tables and every word is kept in a 16-byte slot with its
// trailing space, so emitting a word is one draw, one table load and one unaligned 16-byte copy.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "shoal/io/tpch/distributions.h"
#include "shoal/io/tpch/random_stream.h"

namespace shoal::io::tpch {

class TextGrammar {
 public:
  /// The longest sentence the grammar can produce is well under this; Generate() may also write
  /// up to 16 bytes of scratch past the sentence, so `out` needs kMaxSentence + 16 bytes.
  static constexpr int kMaxSentence = 256;
  static constexpr int kOutputSlack = 16;

  static const TextGrammar& Get();

  /// Writes one sentence to `out` (no trailing space, no terminating NUL); returns its length.
  int Generate(RandomStream& rng, char* out) const;

 private:
  struct Word {
    char bytes[16] = {};  // the word, a space, then padding
    uint8_t length = 0;   // including the space
  };

  struct WordList {
    const Distribution* distribution = nullptr;
    std::vector<Word> words;
  };

  // One slot of a phrase form: which word list, and the punctuation that follows the word (or 0).
  struct Slot {
    const WordList* list;
    char punctuation;
  };

  struct PhraseForm {
    Slot slots[4];
    int count;
  };

  enum class Part : uint8_t { kNounPhrase, kVerbPhrase, kPrepositionalPhrase, kTerminator };

  struct SentenceForm {
    Part parts[6];
    int count;
  };

  TextGrammar();
  static Word MakeWord(std::string_view text);
  static WordList MakeList(const Distribution& d);
  PhraseForm CompilePhrase(std::string_view form) const;

  static char* EmitWord(const WordList& list, RandomStream& rng, char* out) {
    const Word& w = list.words[static_cast<size_t>(list.distribution->Pick(rng))];
    std::memcpy(out, w.bytes, sizeof(w.bytes));
    return out + w.length;
  }

  static char* EmitPhrase(const std::vector<PhraseForm>& forms, const Distribution& picker,
                          RandomStream& rng, char* out);

  WordList nouns_, verbs_, adjectives_, adverbs_, auxiliaries_, articles_, prepositions_,
      terminators_;
  Word the_;  // follows every preposition
  std::vector<PhraseForm> noun_phrases_;
  std::vector<PhraseForm> verb_phrases_;
  std::vector<SentenceForm> sentences_;
  const Distributions& dists_;
};

}  // namespace shoal::io::tpch
