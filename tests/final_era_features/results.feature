# Final-era phrases: results with seeds, run on the HF file stories260K.gguf (see server.feature).
@llama.cpp
@results
Feature: Results

  Background:
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    And   a model file test-model.gguf
    And   128 as batch size
    And   1024 KV cache size
    And   16 max tokens to predict
    And   continuous batching

  Scenario: consistent results with same seed
    Given 1 slots
    And   1.0 temperature
    Then  the server is starting
    Then  the server is healthy
    Given 4 prompts "Title: Little Red Riding Hood But In Space\n\nSummary:" with seed 42
    Given concurrent completion requests
    Then  the server is idle
    And   all slots are idle
    Then  all predictions are equal
    And   all token probabilities are equal

  Scenario: different results with different seed
    Given 1 slots
    And   1.0 temperature
    Then  the server is starting
    Then  the server is healthy
    Given 1 prompts "Title: Little Red Riding Hood But In Space\n\nSummary:" with seed 42
    Given 1 prompts "Title: Little Red Riding Hood But In Space\n\nSummary:" with seed 43
    Given 1 prompts "Title: Little Red Riding Hood But In Space\n\nSummary:" with seed 44
    Given 1 prompts "Title: Little Red Riding Hood But In Space\n\nSummary:" with seed 45
    Given concurrent completion requests
    Then  the server is idle
    And   all slots are idle
    Then  all predictions are different

  Scenario: one seed per queued prompt
    Given 1 slots
    And   1.0 temperature
    Then  the server is starting
    Given a prompt Once upon a time
    And   42 as seed
    And   a prompt Once upon a time
    And   43 as seed
    Given concurrent completion requests
    Then  all predictions are different
