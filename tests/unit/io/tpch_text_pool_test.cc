#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "shoal/io/tpch/streams.h"
#include "shoal/io/tpch/text_grammar.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {
namespace {

TEST(TextGrammarTest, FirstSentencesOfThePool) {
  RandomStream rng(streams::kTextPoolSeed);
  char buffer[TextGrammar::kMaxSentence + TextGrammar::kOutputSlack];
  const TextGrammar& grammar = TextGrammar::Get();
  int n = grammar.Generate(rng, buffer);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)),
            "furiously special foxes haggle furiously blithely ironic deposits.");
  n = grammar.Generate(rng, buffer);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)),
            "slyly final theodolites boost slyly even asymptotes.");
}

TEST(TextPoolTest, BuiltinCheckpointsAreDerivedFromTheGrammar) {
  const std::vector<TextPool::Checkpoint> builtin = TextPool::BuiltinCheckpoints();
  const std::vector<TextPool::Checkpoint> computed =
      TextPool::ComputeCheckpoints(static_cast<int>(builtin.size()));
  ASSERT_EQ(builtin.size(), computed.size());
  for (size_t i = 0; i < builtin.size(); ++i) {
    EXPECT_EQ(builtin[i].state, computed[i].state) << "checkpoint " << i;
    EXPECT_EQ(builtin[i].offset, computed[i].offset) << "checkpoint " << i;
  }
}

TEST(TextPoolTest, ParallelBuildMatchesReferenceText) {
  for (int threads : {1, 3}) {
    auto pool = TextPool::Build(threads);
    ASSERT_TRUE(pool.ok()) << pool.status();
    std::string_view text = (*pool)->view();
    ASSERT_EQ(static_cast<int64_t>(text.size()), TextPool::kSize);
    EXPECT_EQ(text.substr(0, 102),
              "furiously special foxes haggle furiously blithely ironic deposits. slyly final "
              "theodolites boost slyly");
    // The last sentence is cut off where the pool reaches exactly 300 MiB.
    EXPECT_EQ(text.substr(text.size() - 60),
              "essly bold excuses are carefully against the busy, express s");
    EXPECT_EQ(text.find('\0'), std::string_view::npos);
    // Draw() is dbgen's dbg_text(): offset draw then length draw.
    RandomStream rng(streams::kRegionComment.seed);
    EXPECT_EQ((*pool)->Draw(rng, 28, 115),
              "lar deposits. blithely final packages cajole. regular waters are final requests. "
              "regular accounts are according to ");
  }
}

}  // namespace
}  // namespace shoal::io::tpch
