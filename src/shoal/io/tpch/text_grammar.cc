#include "shoal/io/tpch/text_grammar.h"

#include <cstring>

#include "shoal/common/check.h"

namespace shoal::io::tpch {

const TextGrammar& TextGrammar::Get() {
  static const TextGrammar kGrammar;
  return kGrammar;
}

TextGrammar::Word TextGrammar::MakeWord(std::string_view text) {
  SHOAL_CHECK_LT(text.size() + 1, sizeof(Word::bytes));
  Word w;
  std::memset(w.bytes, 0, sizeof(w.bytes));
  std::memcpy(w.bytes, text.data(), text.size());
  w.bytes[text.size()] = ' ';
  w.length = static_cast<uint8_t>(text.size() + 1);
  return w;
}

TextGrammar::WordList TextGrammar::MakeList(const Distribution& d) {
  WordList list{&d, {}};
  for (int i = 0; i < d.size(); ++i)
    list.words.push_back(MakeWord(d.text(i)));
  return list;
}

TextGrammar::PhraseForm TextGrammar::CompilePhrase(std::string_view form) const {
  // Tokens are a part-of-speech letter optionally followed by punctuation, separated by spaces.
  PhraseForm compiled{};
  size_t i = 0;
  while (i < form.size()) {
    if (form[i] == ' ') {
      ++i;
      continue;
    }
    const WordList* list = nullptr;
    switch (form[i]) {
      case 'A': list = &articles_; break;
      case 'J': list = &adjectives_; break;
      case 'D': list = &adverbs_; break;
      case 'N': list = &nouns_; break;
      case 'V': list = &verbs_; break;
      case 'X': list = &auxiliaries_; break;
      default: SHOAL_CHECK(false, "bad phrase form '{}'", form);
    }
    ++i;
    char punctuation = 0;
    if (i < form.size() && form[i] != ' ')
      punctuation = form[i++];
    SHOAL_CHECK_LT(compiled.count, 4);
    compiled.slots[compiled.count++] = Slot{list, punctuation};
  }
  return compiled;
}

TextGrammar::TextGrammar() : dists_(Distributions::Get()) {
  nouns_ = MakeList(dists_.nouns);
  verbs_ = MakeList(dists_.verbs);
  adjectives_ = MakeList(dists_.adjectives);
  adverbs_ = MakeList(dists_.adverbs);
  auxiliaries_ = MakeList(dists_.auxiliaries);
  articles_ = MakeList(dists_.articles);
  prepositions_ = MakeList(dists_.prepositions);
  terminators_ = MakeList(dists_.terminators);
  the_ = MakeWord("the");
  for (int i = 0; i < dists_.noun_phrase_forms.size(); ++i)
    noun_phrases_.push_back(CompilePhrase(dists_.noun_phrase_forms.text(i)));
  for (int i = 0; i < dists_.verb_phrase_forms.size(); ++i) {
    PhraseForm f = CompilePhrase(dists_.verb_phrase_forms.text(i));
    // The reference generator mishandles punctuation inside verb phrases; none exists.
    for (int s = 0; s < f.count; ++s)
      SHOAL_CHECK(f.slots[s].punctuation == 0, "punctuation in a verb phrase form");
    verb_phrases_.push_back(f);
  }
  for (int i = 0; i < dists_.sentence_forms.size(); ++i) {
    std::string_view text = dists_.sentence_forms.text(i);
    SentenceForm form{};
    for (char c : text) {
      if (c == ' ')
        continue;
      Part part;
      switch (c) {
        case 'N': part = Part::kNounPhrase; break;
        case 'V': part = Part::kVerbPhrase; break;
        case 'P': part = Part::kPrepositionalPhrase; break;
        case 'T': part = Part::kTerminator; break;
        default: SHOAL_CHECK(false, "bad sentence form '{}'", text);
      }
      SHOAL_CHECK_LT(form.count, 6);
      form.parts[form.count++] = part;
    }
    // Sentence lengths are counted as the reference generator counts them only for forms that
    // end in a terminator, which all do.
    SHOAL_CHECK(form.count > 0 && form.parts[form.count - 1] == Part::kTerminator,
                "sentence form '{}' does not end with a terminator", text);
    sentences_.push_back(form);
  }
}

char* TextGrammar::EmitPhrase(const std::vector<PhraseForm>& forms, const Distribution& picker,
                              RandomStream& rng, char* out) {
  const PhraseForm& form = forms[static_cast<size_t>(picker.Pick(rng))];
  for (int i = 0; i < form.count; ++i) {
    const Slot& slot = form.slots[i];
    out = EmitWord(*slot.list, rng, out);
    if (slot.punctuation != 0) {
      out[-1] = slot.punctuation;
      *out++ = ' ';
    }
  }
  return out;
}

int TextGrammar::Generate(RandomStream& rng, char* out) const {
  char* p = out;
  const SentenceForm& form = sentences_[static_cast<size_t>(dists_.sentence_forms.Pick(rng))];
  for (int i = 0; i < form.count; ++i) {
    switch (form.parts[i]) {
      case Part::kNounPhrase:
        p = EmitPhrase(noun_phrases_, dists_.noun_phrase_forms, rng, p);
        break;
      case Part::kVerbPhrase:
        p = EmitPhrase(verb_phrases_, dists_.verb_phrase_forms, rng, p);
        break;
      case Part::kPrepositionalPhrase:
        // "about" + " the " in the reference: the preposition's trailing space, then "the ".
        p = EmitWord(prepositions_, rng, p);
        std::memcpy(p, the_.bytes, sizeof(the_.bytes));
        p += the_.length;
        p = EmitPhrase(noun_phrases_, dists_.noun_phrase_forms, rng, p);
        break;
      case Part::kTerminator:
        // Terminators abut the previous word: they replace its trailing space.
        p = EmitWord(terminators_, rng, p - 1) - 1;
        break;
    }
  }
  return static_cast<int>(p - out);
}

}  // namespace shoal::io::tpch
