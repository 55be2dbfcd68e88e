# Final-era phrases: embeddings. The original served bert-bge-small (HF ggml-org/models); the first
# scenarios use it when LLAMA_BDD_MODELS_DIR holds it (skipped otherwise, naming the file), the last ones
# run on the default model.
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

  # today's server refuses an input longer than the batch with 500 (as in 2024)
  Scenario: Embedding (error: prompt too long)
    Given a server listening on localhost:8080
    And   a model file default
    And   64 as batch size
    And   64 as ubatch size
    And   enable embeddings endpoint
    Then  the server is starting
    When  a POST request to /embedding with JSON {"content": "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty one two three four five six seven eight nine ten"}
    Then  embeddings request with 500 api error

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
