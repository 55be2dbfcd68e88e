# Final-era phrase '{draft:d} as draft': tokens to draft (today --spec-draft-n-max); without a draft model
# the server starts and generates as usual
@llama.cpp
@speculative
Feature: draft size

  Scenario: A draft size without a draft model
    Given a server listening on localhost:8080
    And   a model file default
    And   8 as draft
    Then  the server is starting
    Given a prompt Once upon a time
    And   8 max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  8 tokens are predicted
