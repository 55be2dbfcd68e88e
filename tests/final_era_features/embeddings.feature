# Final-era phrases: embeddings. The original served bert-bge-small (HF ggml-org/models); the first
# scenarios use it when LLAMA_BDD_MODELS_DIR holds it (skipped otherwise, naming the file), the last ones
# run on the default model. SmolLM2 names no pooling type ('none': per-token vectors), which today's
# /v1/embeddings refuses ("Pooling type 'none' is not OAI compatible", 400): the OpenAI scenarios on it ask
# for mean pooling.
@llama.cpp
@embeddings
Feature: llama.cpp server embeddings

  Scenario: All embeddings should be the same (bert-bge-small)
    Given a server listening on localhost:8080
    And   a model file bert-bge-small/ggml-model-f16.gguf from HF repo ggml-org/models
    And   a model file bert-bge-small.gguf
    And   a model alias bert-bge-small
    And   128 as batch size
    And   128 as ubatch size
    And   512 KV cache size
    And   enable embeddings endpoint
    Then  the server is starting
    Then  the server is healthy
    Given 10 fixed prompts
    And   a model bert-bge-small
    Given concurrent OAI embedding requests
    Then  all embeddings are the same

  Scenario: All embeddings should be the same
    Given a server listening on localhost:8080
    And   a model file default
    And   the server option --pooling set to mean
    And   2 slots
    And   128 as batch size
    And   128 as ubatch size
    And   1024 KV cache size
    And   enable embeddings endpoint
    Then  the server is starting
    Then  the server is healthy
    Given 4 fixed prompts
    Given concurrent OAI embedding requests
    Then  all embeddings are the same

  # the input is longer than the physical batch: today's server refuses it with 500 (server_error,
  # "input (N tokens) is too large to process. increase the physical batch size"), as in 2024
  Scenario: Embedding (error: prompt too long)
    Given a server listening on localhost:8080
    And   a model file default
    And   64 as batch size
    And   64 as ubatch size
    And   enable embeddings endpoint
    Then  the server is starting
    When  embeddings are computed for:
    """
    Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.
    Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.
    Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur.
    Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum.
    """
    And   embeddings request with 500 api error

  Scenario: Embedding
    Given a server listening on localhost:8080
    And   a model file default
    And   enable embeddings endpoint
    Then  the server is starting
    When  embeddings are computed for:
    """
    What is the capital of Bulgaria ?
    """
    Then  embeddings are generated

  Scenario: OAI Embeddings compatibility with multiple inputs
    Given a server listening on localhost:8080
    And   a model file default
    And   the server option --pooling set to mean
    And   enable embeddings endpoint
    Then  the server is starting
    Given a model bert-bge-small
    When  an OAI compatible embeddings computation request for:
    """
    What is the capital of Spain ?
    """
    Then  embeddings are generated
    Given a prompt:
      """
      In which country Paris is located ?
      """
    And a prompt:
      """
      Is Madrid the capital of Spain ?
      """
    When an OAI compatible embeddings computation request for multiple inputs
    Then embeddings are generated

  # 2024's parallel.feature sent these to its completion server; today's server serves /embedding only
  # with --embedding (501 without), so the scenario lives here with its own server
  Scenario: Multi users embeddings
    Given a server listening on localhost:8080
    And   a model file default
    And   2 slots
    And   continuous batching
    And   enable embeddings endpoint
    Then  the server is starting
    Then  the server is healthy
    Given a prompt:
      """
      Write a very long story about AI.
      """
    And a prompt:
      """
      Write another very long music lyrics.
      """
    Given concurrent embedding requests
    Then  the server is idle
    Then  all embeddings are generated
