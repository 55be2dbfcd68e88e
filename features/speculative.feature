@speculative
Feature: Speculative decoding
  A draft (from a draft model, --spec-type draft-simple --model-draft FILE, or from n-grams of the text so
  far, --spec-type ngram-simple, ngram-map-k, ngram-mod, ngram-cache) proposes tokens that the model checks
  in one batch. What a build offers is read from its --help: a build whose --spec-type lists no draft-simple
  (b9093) drafts with --model-draft alone; a type it does not list, or a list where it takes one type,
  skips the scenario with what its --help says; a build not known to export the speculation counters that
  exports none skips the metrics checks with the reason. At temperature 0 what is generated is the model's own text, token for token. Each answer's
  timings report draft_n and draft_n_accepted; /metrics counts drafted and accepted tokens, drafts, and the
  accepted tokens per draft position. Configurations the server cannot run are refused at start.
  The prompt repeats itself, so the n-gram types find something to draft.

  Background: One slot, metrics, a repetitive prompt answered greedily
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   prometheus compatible metrics exposed
    And   a prompt one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three
    And   24 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true

  @requires.spec_draft
  Scenario: With the model as its own draft, the text is the model's own and the drafts are counted
    Then  the server is starting
    When  a completion request with no api error
    Then  the completion drafted no token
    When  the server is stopped
    Given speculative decoding with the default model as its own draft
    Then  the server is starting
    When  the completion request is sent again
    Then  the last 2 completions are identical
    And   the completion drafted tokens and some of them were accepted
    And   the speculation metrics count the last completion's drafted and accepted tokens

  @requires.spec_ngram
  Scenario Outline: Draft-free speculation (<types>) generates the model's own text and counts its drafts
    Then  the server is starting
    When  a completion request with no api error
    And   the server is stopped
    Given speculative decoding of type <types>
    And   the server option --spec-ngram-simple-size-n set to 3
    And   the server option --spec-ngram-simple-size-m set to 8
    And   the server option --spec-ngram-map-k-size-n set to 3
    And   the server option --spec-ngram-map-k-size-m set to 8
    Then  the server is starting
    When  the completion request is sent again
    Then  the last 2 completions are identical
    And   the completion drafted tokens and some of them were accepted
    And   the speculation metrics count the last completion's drafted and accepted tokens

    Examples:
      | types                   |
      | ngram-simple            |
      | ngram-map-k             |
      | ngram-mod               |
      | ngram-cache             |
      | ngram-simple,ngram-mod  |

  @requires.spec_draft
  Scenario Outline: The draft sizes stay within --spec-draft-n-min and --spec-draft-n-max: <n_min> to <n_max>
    Given speculative decoding with the default model as its own draft
    And   drafts of at most <n_max> and at least <n_min> tokens
    Then  the server is starting
    When  a completion request with no api error
    Then  the completion drafted tokens and some of them were accepted
    And   every draft held between <n_min> and <n_max> tokens

    Examples:
      | n_min | n_max |
      | 1     | 2     |
      | 4     | 8     |

  # b11434 says "unknown speculative type: draft-bogus", b9093 "unknown speculative decoding type without
  # draft model": the check is on what both say.
  @requires.spec_ngram
  Scenario: An unknown speculative type is refused at start
    Given the server arguments --spec-type draft-bogus
    Then  the server refuses to start, its log saying "unknown speculative"

  @requires.spec_draft
  Scenario: A draft model that cannot be loaded is refused at start
    Given speculative decoding with the draft model /nonexistent/draft.gguf
    Then  the server refuses to start, its log saying "failed to load draft model"

  # The server starts anyway and serves without speculation; its log says, as an error, "failed to
  # initialize speculative decoding context: draft-simple requires a draft context".
  @known_bug @requires.spec_draft
  Scenario: A draft type without a draft model is refused at start
    Given speculative decoding of type draft-simple
    Then  the server refuses to start, its log saying "requires a draft context"

  # The server starts, says nothing, and never drafts: every draft is shorter than n-min, so each is dropped.
  @known_bug @requires.spec_draft
  Scenario: A minimum draft size above the maximum is refused at start
    Given speculative decoding with the default model as its own draft
    And   drafts of at most 2 and at least 5 tokens
    Then  the server refuses to start, its log saying "n_min"
