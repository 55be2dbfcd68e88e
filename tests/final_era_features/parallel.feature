# Final-era phrases: parallel requests on the default model
@llama.cpp
@parallel
Feature: Parallel

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias tinyllama-2
    And   42 as server seed
    And   1024 KV cache size
    And   2 slots
    And   continuous batching
    Then  the server is starting
    Then  the server is healthy

  Scenario Outline: Multi users completion
    Given a prompt:
      """
      Write a very long story about AI.
      """
    And a prompt:
      """
      Write another very long music lyrics.
      """
    And   <n_predict> max tokens to predict
    And   the request field ignore_eos is true
    Given concurrent completion requests
    Then  the server is busy
    Then  the server is idle
    And   all slots are idle
    Then  all prompts are predicted with <n_predict> tokens
    Examples:
      | n_predict |
      | 64        |

  Scenario Outline: Multi users OAI completions compatibility
    Given a system prompt You are a writer.
    And   a model tinyllama-2
    Given a prompt:
      """
      Write a very long book.
      """
    And a prompt:
      """
      Write another a poem.
      """
    And   16 max tokens to predict
    And   streaming is <streaming>
    Given concurrent OAI completions requests
    Then  the server is idle
    Then  all prompts are predicted
    Examples:
      | streaming |
      | disabled  |
      | enabled   |

  Scenario: Multi users OAI completions compatibility no v1
    Given a system prompt You are a writer.
    And   a model tinyllama-2
    Given a user prompt Write a very long book.
    And   a user prompt Write another a poem.
    And   16 max tokens to predict
    Given concurrent OAI completions requests no v1
    Then  the server is idle
    Then  all prompts are predicted
