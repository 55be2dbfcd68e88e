@server @embeddings @concurrency @requires.pooling
Feature: Embeddings on several slots
  Requests sent at once are spread over the slots; each gets valid vectors.

  Background: An embedding server with mean pooling and two slots
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   2 slots
    And   512 KV cache size
    And   embeddings extraction
    And   the server option --pooling set to mean
    Then  the server is starting

  Scenario: Concurrent native embedding requests
    Given a prompt Write a very long story about AI.
    And   a prompt Write another very long music lyrics.
    And   a prompt In which country is Paris located ?
    And   a prompt What is the capital of Bulgaria ?
    When  concurrent embedding requests
    Then  all embeddings are generated
    And   every embedding has the model's embedding size
    And   every embedding is L2-normalised

  Scenario: Concurrent OAI embedding requests
    Given a model smollm2
    And   a prompt In which country Paris is located ?
    And   a prompt Is Madrid the capital of Spain ?
    And   a prompt What is the capital of Bulgaria ?
    And   a prompt Write a very long story about AI.
    When  concurrent OAI embedding requests
    Then  all embeddings are generated
    And   every embedding has the model's embedding size
    And   every embedding is L2-normalised

  # b11434 gets this wrong: with mean or cls pooling, an input that shares a batch with a shorter one on
  # another slot comes back with another vector (cosine 0.94 for mean, down to 0.06 for cls; last pooling
  # and a single slot are right). Skipped (with this reason) until the server is fixed.
  @known_bug
  Scenario: With several slots, each input of a batch embeds as it does alone
    When these inputs are embedded through POST /v1/embeddings:
      | input                                 |
      | hello world                           |
      | the cat sat on the mat today          |
      | hi                                    |
      | What is the capital of France ?       |
    Then one embedding is returned per input, in input order
    And  each embedding equals its input embedded alone
