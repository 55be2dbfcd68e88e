# Final-era phrases: reranking with jina-reranker-v1-tiny-en (HF ggml-org/models), skipped when absent
@llama.cpp
@rerank
Feature: llama.cpp server reranking

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file jina-reranker-v1-tiny-en/ggml-model-f16.gguf from HF repo ggml-org/models
    And   a model file jina-reranker-v1-tiny-en.gguf
    And   a model alias jina-reranker-v1-tiny-en
    And   42 as server seed
    And   2 slots
    And   512 as batch size
    And   512 as ubatch size
    And   512 KV cache size
    And   enable reranking endpoint
    Then  the server is starting
    Then  the server is healthy

  Scenario: Rerank
    Given a rerank query:
      """
      Machine learning is
      """
    And   a rerank document:
      """
      A machine is a physical system that uses power to apply forces and control movement to perform an action.
      """
    And   a rerank document:
      """
      Learning is the process of acquiring new understanding, knowledge, behaviors, skills, values, attitudes, and preferences.
      """
    And   a rerank document:
      """
      Machine learning is a field of study in artificial intelligence concerned with statistical algorithms that learn from data.
      """
    And   a rerank document:
      """
      Paris, capitale de la France, est une grande ville européenne et un centre mondial de l'art.
      """
    When  reranking request
    Then  reranking results are returned
    Then  reranking highest score is index 2 and lowest score is index 3
