@server @completion
Feature: Native completion
  POST /completion generates exactly the tokens asked for, and is deterministic for a fixed seed at
  temperature 0.

  Background: One slot, a fixed seed
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   42 as server seed
    And   1 slots
    And   512 KV cache size
    Then  the server is starting
    Then  the server is healthy

  Scenario Outline: n_predict is honoured exactly
    Given a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  <n_predict> tokens are predicted

    Examples:
      | prompt                           | n_predict |
      | I believe the meaning of life is | 1         |
      | Write a joke about AI            | 8         |
      | Once upon a time                 | 48        |

  Scenario: The same seed at temperature 0 gives the same text twice
    Given a prompt The capital of France is
    And   16 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    And   a completion request with no api error
    When  the completion request is sent again
    Then  the last 2 completions are identical
