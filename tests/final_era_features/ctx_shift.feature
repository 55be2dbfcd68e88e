# Final-era phrases: context shift and truncation. Today's llama-server has context shift off by default
# (it was on in 2024): 'disable context shifting' still passes --no-context-shift.
@llama.cpp
@ctx_shift
Feature: context shift

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    And   a model file test-model.gguf
    And   a model alias tinyllama-2
    And   42 as server seed
    And   256 KV cache size
    And   128 as batch size
    And   1 slots

  Scenario Outline: Inference without context shift
    And   <n_predict> server max tokens to predict
    And   disable context shifting
    Then  the server is starting
    Then  the server is healthy
    Given a prompt:
    """
    Hi how are you
    """
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  <n_token_output> tokens are predicted
    And   the completion is <truncated> truncated
    And   5 prompt tokens are processed
    Examples:
      | n_predict | n_token_output | truncated |
      | 16        | 16             | not       |

  # When the generation fills the context without context shift, today's server stops and sets truncated
  Scenario: Generation fills the context
    And   -1 server max tokens to predict
    And   disable context shifting
    Then  the server is starting
    Then  the server is healthy
    Given a prompt:
    """
    Hi how are you
    """
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  the completion is  truncated
